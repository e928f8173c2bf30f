#ifndef CRAVEY_CZLIB_SHIM_H
#define CRAVEY_CZLIB_SHIM_H

#include <zlib.h>

#endif
