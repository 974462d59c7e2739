#ifndef MELON_CZEROMQ_SHIM_H
#define MELON_CZEROMQ_SHIM_H

#include <zmq.h>
// Swift's Glibc module does not export eventfd; the I/O threads use one as their wake-up descriptor.
#include <sys/eventfd.h>
#include <sys/prctl.h>

/// Names the calling thread as top, ps and perf show it (at most 15 bytes are kept).
static inline void melon_set_thread_name(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

#endif
