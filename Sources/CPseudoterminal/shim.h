#pragma once

// glibc declares these only under _XOPEN_SOURCE or _GNU_SOURCE, which Swift's Glibc module is
// built without: declared here as glibc defines them.

#include <spawn.h>

extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern int ptsname_r(int fd, char *buf, size_t buflen);
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *actions, const char *path);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// `POSIX_SPAWN_SETSID` (glibc 2.26 and later): the child starts a new session.
static inline short baton_posix_spawn_setsid(void) { return 0x80; }
