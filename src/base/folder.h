/* The folder a file is in, opened as a descriptor. */
#ifndef CLRTRACE_BASE_FOLDER_H
#define CLRTRACE_BASE_FOLDER_H

/* The folder that holds the file at path ("." for a bare name), opened
 * O_PATH | O_DIRECTORY | O_CLOEXEC: files are then made, renamed and
 * deleted in it through the descriptor (openat, renameat), whatever mount
 * namespace later uses it. *name (when name is not NULL) points at path's
 * last component. The descriptor, or -1 (errno). */
int ct_folder_open(const char *path, const char **name);

#endif
