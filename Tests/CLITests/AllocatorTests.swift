#if canImport(CJemalloc)
import CJemalloc
import Glibc
import Testing

@testable import podfresh

/// The binary allocates through jemalloc with podfresh's settings (two arenas, freed pages back within a second),
/// and a user's `MALLOC_CONF` still wins. jemalloc prints its options on exit when `MALLOC_CONF` asks for
/// `stats_print`.
struct AllocatorTests {
    @Test(arguments: [
        // podfresh's own settings.
        ("stats_print:true", ["opt.narenas: 2\n", "opt.dirty_decay_ms: 1000 ", "opt.muzzy_decay_ms: 0 "]),
        // A user's win where they say otherwise; podfresh's stay for the rest.
        (
            "stats_print:true,narenas:3,dirty_decay_ms:5000",
            ["opt.narenas: 3\n", "opt.dirty_decay_ms: 5000 ", "opt.muzzy_decay_ms: 0 "]
        ),
    ])
    func theBinaryAllocatesThroughJemallocWithTheseOptions(environment: String, options: [String]) async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["MALLOC_CONF"] = environment
        let result = try await podfresh.run(["--version"])
        #expect(result.status == 0)
        for option in options {
            #expect(result.stderr.contains(option), "jemalloc's options: \(result.stderr.prefix(2000))")
        }
    }

    /// What `watch` does between cycles: memory freed moments ago (still within its decay time) goes back at once.
    /// This test process links podfresh's module, so it runs on jemalloc with the same settings.
    @Test func freedMemoryGoesBackToTheSystemWhenAsked() throws {
        let blocks = (0..<1024).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16) }
        for block in blocks { block.initializeMemory(as: UInt8.self, repeating: 1, count: 64 * 1024) }
        for block in blocks { block.deallocate() }
        let freed = try Self.dirtyBytes()
        Allocator.returnFreedMemory()
        let left = try Self.dirtyBytes()
        // 64 MB were touched and freed. Other tests of this process allocate and free meanwhile, and jemalloc's decay may
        // already have returned part of it on a busy machine (a full side-by-side run once left 13.9 MB dirty): at least
        // 8 MB must still be dirty for the purge below to show.
        #expect(freed >= 8 << 20, "freed pages kept dirty before the purge: \(freed) bytes")
        #expect(left < 4 << 20, "freed pages kept dirty after the purge: \(left) bytes")
    }

    /// Dirty pages (freed, not yet given back) in every arena, from jemalloc's statistics.
    static func dirtyBytes() throws -> Int {
        var epoch: UInt64 = 1
        #expect(mallctl("epoch", nil, nil, &epoch, MemoryLayout<UInt64>.size) == 0)
        var pages = 0
        var length = MemoryLayout<Int>.size
        #expect(mallctl("stats.arenas.4096.pdirty", &pages, &length, nil, 0) == 0)
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
#endif
