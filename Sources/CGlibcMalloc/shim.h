#ifndef PODFRESH_CGLIBCMALLOC_SHIM_H
#define PODFRESH_CGLIBCMALLOC_SHIM_H

/* glibc's mallopt and its M_* settings, which Swift's Glibc module does not import. */
#include <malloc.h>

#endif
