#pragma once

// Linux's timer descriptors, which Swift's Glibc module leaves out: `MainQueueTimers` sleeps on
// one.

#include <sys/timerfd.h>
