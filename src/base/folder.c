/* O_PATH under -std=c11. */
#define _GNU_SOURCE

#include "folder.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

int ct_folder_open(const char *path, const char **name)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (name)
        *name = slash ? path + (slash - dir) + 1 : path;
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0'; /* "/x": the root */
    return open(slash ? dir : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
}
