#ifndef PODFRESH_CZLIB_SHIM_H
#define PODFRESH_CZLIB_SHIM_H

/* zlib's inflate, for feed bodies decoded as they stream (HTTPTransport's BodyInflater). */
#include <zlib.h>

#endif
