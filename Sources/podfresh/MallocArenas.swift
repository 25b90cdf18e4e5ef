#if canImport(CGlibcMalloc)
import CGlibcMalloc
import Glibc
#endif

/// Caps glibc's malloc arenas at two. By default glibc gives threads up to eight arenas per core, and memory freed in
/// one arena is not reused by the others: with the event loops, Swift's pool, Dispatch queues and name lookups all
/// allocating, a cold refresh of 1000 feeds peaked 20–30% higher in resident memory with the default, at no
/// measurable cost in time (docs/benchmarks.md). A user's own `MALLOC_ARENA_MAX` still wins.
enum MallocArenas {
    static func limit() {
        #if canImport(CGlibcMalloc)
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = mallopt(M_ARENA_MAX, 2)
        #endif
    }
}
