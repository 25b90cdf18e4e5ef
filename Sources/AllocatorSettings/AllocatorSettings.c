#include "AllocatorSettings.h"

/* jemalloc reads this symbol from the executable before the first allocation; MALLOC_CONF in the environment is
   applied after it, so a user's own settings win. Why these (measurements in docs/benchmarks.md):
   - narenas:2    two arenas instead of four per core: a refresh's threads share them, and memory freed in one
                  arena is not reused by the others (the cold peak grows with more).
   - dirty_decay_ms:1000, muzzy_decay_ms:0
                  pages freed by a finished feed go back to the system after about a second rather than ten, and
                  not through a second, lazier stage: a cold refresh's peak stays low while the CPU cost of giving
                  pages back (seen with 0) stays away. */
const char *malloc_conf = "narenas:2,dirty_decay_ms:1000,muzzy_decay_ms:0";
