#if canImport(CJemalloc)
import CJemalloc
#endif

/// podfresh allocates through jemalloc, linked into the executable, instead of glibc's malloc.
///
/// A refresh allocates and frees from many threads at once (the event loops, Swift's pool, Dispatch queues): glibc's
/// malloc spends much of that time waiting on arena locks and mapping and unmapping large blocks, where jemalloc's
/// arenas and size classes do not, for a like peak of resident memory (the measurements: docs/benchmarks.md). Its settings are compiled in
/// (Sources/AllocatorSettings); a user's own `MALLOC_CONF` wins.
enum Allocator {
    /// Gives memory freed since the last call back to the system now. jemalloc returns freed pages about a second
    /// after they were freed, but only when the program next allocates: a `watch` sleeping between cycles would keep
    /// its last cycle's peak resident until it woke. A `watch` calls this when a cycle has ended.
    static func returnFreedMemory() {
        #if canImport(CJemalloc)
        // "arena.<i>.purge" with MALLCTL_ARENAS_ALL (4096): every arena.
        _ = mallctl("arena.4096.purge", nil, nil, nil, 0)
        #endif
    }
}
