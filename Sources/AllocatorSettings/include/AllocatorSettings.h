#ifndef PODFRESH_ALLOCATOR_SETTINGS_H
#define PODFRESH_ALLOCATOR_SETTINGS_H

/// The settings podfresh gives jemalloc, which reads this symbol of the executable; `MALLOC_CONF` in the environment
/// overrides them.
extern const char *malloc_conf;

#endif
