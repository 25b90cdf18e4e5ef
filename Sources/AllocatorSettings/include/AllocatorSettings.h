#ifndef PODFRESH_ALLOCATOR_SETTINGS_H
#define PODFRESH_ALLOCATOR_SETTINGS_H

/// The settings podfresh gives jemalloc (its `malloc_conf`), which `MALLOC_CONF` in the environment overrides.
const char *podfresh_allocator_settings(void);

#endif
