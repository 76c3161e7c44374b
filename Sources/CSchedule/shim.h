#pragma once

// Which CPUs a thread or process may run on: glibc declares this only under _GNU_SOURCE, which
// Swift's Glibc module is built without, so it is declared here as glibc defines it. Used by
// `handoff-bench wake` to time a wake-up on one CPU and across two.

#include <sched.h>
#include <sys/types.h>

extern int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask);
