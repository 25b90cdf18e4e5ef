#if canImport(CGlibcMalloc)
import CGlibcMalloc
import Glibc
#endif

/// How glibc's malloc keeps memory for podfresh: a refresh allocates from many threads at once (the event loops,
/// Swift's pool, Dispatch queues, name lookups) and frees network buffers of a few hundred kilobytes all the time.
///
/// - Two arenas instead of up to eight per core: memory freed in one arena is not reused by the others, and with the
///   default a cold refresh of 1000 feeds peaked 20–30% higher in resident memory, at no measurable cost in time.
/// - Blocks of 128 KB and more come from their own mappings and go back to the system when freed, and the heap's top is
///   trimmed past 512 KB free. glibc's default raises the mapping threshold to 32 MB as soon as one large block is
///   freed, after which every connection's grown read buffers stay in the heap and fragment it: on the simulated
///   internet a cold refresh of 1000 feeds peaked 5-10% lower in resident memory with these settings, in the same time
///   (docs/benchmarks.md).
///
/// A user's own `MALLOC_ARENA_MAX`, `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_` or `GLIBC_TUNABLES` still wins.
enum MallocTuning {
    static func apply() {
        #if canImport(CGlibcMalloc)
        if getenv("MALLOC_ARENA_MAX") == nil && getenv("GLIBC_TUNABLES") == nil { _ = mallopt(M_ARENA_MAX, 2) }
        if getenv("MALLOC_MMAP_THRESHOLD_") == nil && getenv("GLIBC_TUNABLES") == nil {
            _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
        }
        if getenv("MALLOC_TRIM_THRESHOLD_") == nil && getenv("GLIBC_TUNABLES") == nil {
            _ = mallopt(M_TRIM_THRESHOLD, 512 * 1024)
        }
        #endif
    }
}
