#if canImport(CJemalloc)
import CJemalloc
import Glibc
import Testing

@testable import podfresh

/// The binary allocates through jemalloc with podfresh's settings (two arenas, freed pages back within a second),
/// and a user's `MALLOC_CONF` still wins. jemalloc prints its options on exit when `MALLOC_CONF` asks for
/// `stats_print`.
struct AllocatorTests {
    @Test func theBinaryAllocatesThroughJemallocWithPodfreshsSettings() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["MALLOC_CONF"] = "stats_print:true"
        let result = try await podfresh.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("opt.narenas: 2\n"), "jemalloc's options: \(result.stderr.prefix(2000))")
        #expect(result.stderr.contains("opt.dirty_decay_ms: 1000 "))
        #expect(result.stderr.contains("opt.muzzy_decay_ms: 0 "))
    }

    @Test func aUsersOwnSettingsWin() async throws {
        var podfresh = try Podfresh()
        defer { podfresh.cleanUp() }
        podfresh.environment["MALLOC_CONF"] = "stats_print:true,narenas:3,dirty_decay_ms:5000"
        let result = try await podfresh.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("opt.narenas: 3\n"))
        #expect(result.stderr.contains("opt.dirty_decay_ms: 5000 "))
        #expect(result.stderr.contains("opt.muzzy_decay_ms: 0 "))
    }

    /// What `watch` does between cycles: memory freed moments ago (still within its decay time) goes back at once.
    @Test func freedMemoryGoesBackToTheSystemWhenAsked() throws {
        // This test process links podfresh's module, so it runs on jemalloc with the same settings.
        #expect(Allocator.settings == "narenas:2,dirty_decay_ms:1000,muzzy_decay_ms:0")
        let blocks = (0..<1024).map { _ in UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16) }
        for block in blocks { block.initializeMemory(as: UInt8.self, repeating: 1, count: 64 * 1024) }
        for block in blocks { block.deallocate() }
        let freed = try Self.dirtyBytes()
        Allocator.returnFreedMemory()
        let left = try Self.dirtyBytes()
        // 64 MB were touched and freed; other tests of this process allocate meanwhile, but not megabytes at a time.
        #expect(freed >= 16 << 20, "freed pages kept dirty before the purge: \(freed) bytes")
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
