#ifndef CRAVEY_CV4L2_SHIM_H
#define CRAVEY_CV4L2_SHIM_H

/* The kernel's Video4Linux2 interface, for asking a camera what it offers. Headers only: no
   library is linked (libavdevice, which captures, is loaded by the video recorder alone). */
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>

/* The ioctl request numbers are function-like macros (_IOR, _IOWR), which do not import. */
static inline unsigned long cravey_vidioc_querycap(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long cravey_vidioc_enum_fmt(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long cravey_vidioc_enum_framesizes(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long cravey_vidioc_enum_frameintervals(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }

/* ioctl is variadic, which Swift cannot call; this one retries when a signal interrupts it. */
static inline int cravey_v4l2_ioctl(int descriptor, unsigned long request, void *argument) {
    int result;
    do {
        result = ioctl(descriptor, request, argument);
    } while (result == -1 && errno == EINTR);
    return result;
}

#endif
