#pragma once

// Which CPUs a thread or process may run on: glibc declares these only under _GNU_SOURCE, which
// Swift's Glibc module is built without, so they are declared here as glibc defines them. Used
// by `handoff-bench wake` to time a wake-up on one CPU and across two.

#include <sched.h>
#include <sys/types.h>

extern int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask);
extern int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask);
