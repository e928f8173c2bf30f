#ifndef CRAVEY_CSDBUS_SHIM_H
#define CRAVEY_CSDBUS_SHIM_H

/* sd-bus, libsystemd's D-Bus client, for the desktop's media controls and notifications.
   Headers only: nothing is linked. `DBus/SDBus` loads libsystemd with dlopen when a session bus
   exists, so a play without one (a server, a container, CI) neither loads nor needs it. */
#include <systemd/sd-bus.h>
/* What wakes the thread that owns a bus (Glibc does not bring it). */
#include <sys/eventfd.h>

#endif
