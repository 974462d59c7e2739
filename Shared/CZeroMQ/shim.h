#ifndef MELON_CZEROMQ_SHIM_H
#define MELON_CZEROMQ_SHIM_H

#include <zmq.h>
// Swift's Glibc module does not export eventfd; the I/O threads use one as their wake-up descriptor.
#include <sys/eventfd.h>

#endif
