#ifndef PODFRESH_CJEMALLOC_SHIM_H
#define PODFRESH_CJEMALLOC_SHIM_H

/* jemalloc replaces malloc for the whole process once linked; only its control interface is named here (its own
   header redeclares malloc and free, which Swift's Glibc module declares already). */
#include <stddef.h>

int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#endif
