#pragma once

// Linux's routing netlink declarations, which Swift's Glibc module leaves out: the transport
// subscribes to link, address and route changes (HandoffMulticast's `InterfaceEvents`).

#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
