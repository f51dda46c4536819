/* madvise() and MADV_DONTNEED under -std=c11. */
#define _DEFAULT_SOURCE

#include "pages.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

void ct_pages_release(void *p, size_t n)
{
    long page = sysconf(_SC_PAGESIZE);
    if (!p || page <= 0)
        return;
    uintptr_t mask = (uintptr_t)page - 1;
    uintptr_t lo = ((uintptr_t)p + mask) & ~mask, hi = ((uintptr_t)p + n) & ~mask;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}
