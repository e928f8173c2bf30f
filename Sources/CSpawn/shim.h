#ifndef CRAVEY_CSPAWN_SHIM_H
#define CRAVEY_CSPAWN_SHIM_H

#include <spawn.h>

// glibc's GNU additions that a child process is started with (ChildProcess). glibc declares
// them only under _GNU_SOURCE, which Swift's Glibc module is built without, so they are declared
// here as glibc defines them (pipe2 since 2.9, posix_spawn_file_actions_addclosefrom_np since 2.34).
extern int pipe2(int fds[2], int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// A pipe whose two ends are made with `flags` (O_CLOEXEC) at once. The corresponding C function is `pipe2`.
static inline int cravey_pipe2(int fds[2], int flags) {
    return pipe2(fds, flags);
}

/// Closes every descriptor from `from` up in the child, before it runs its program.
/// The corresponding C function is `posix_spawn_file_actions_addclosefrom_np`.
static inline int cravey_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

#endif
