/* Memory given back to the system without unmapping it. */
#ifndef CLRTRACE_BASE_PAGES_H
#define CLRTRACE_BASE_PAGES_H

#include <stddef.h>

/* The whole pages inside [p, p + n) given back to the system
 * (madvise MADV_DONTNEED on anonymous memory, such as malloc's): they stay
 * mapped and read as zeros after; a later write maps a fresh page. The
 * partial pages at either end are left as they are (other allocations may
 * share them). p may be NULL. */
void ct_pages_release(void *p, size_t n);

#endif
