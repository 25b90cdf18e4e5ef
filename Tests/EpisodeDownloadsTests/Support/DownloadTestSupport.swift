import EpisodeDownloads
import Foundation
import HTTPTransport
import Measures
import Synchronization
import TestSupport
import Testing

// What the downloader's tests share: a server, a downloader and a folder for each test, media bytes, and the one
// check every failed download must pass (nothing under the final name).

/// A folder of its own under the system's temporary directory, removed afterwards.
func withTemporaryDirectory<R>(_ body: (URL) async throws -> R) async throws -> R {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "podfresh-downloads-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// `count` bytes that differ with `seed`, so two versions of a file never share a range.
func mediaBytes(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8 &+ Int(seed) &* 101) }
}

/// What the progress callback saw.
final class ProgressLog: Sendable {
    private struct State {
        var reports: [DownloadProgress] = []
        var finalFileSeen = false
        var partMissing = false
    }

    private let state = Mutex(State())
    let destination: URL

    init(destination: URL) { self.destination = destination }

    func record(_ progress: DownloadProgress) {
        let finalExists = FileManager.default.fileExists(atPath: destination.path)
        let partExists = FileManager.default.fileExists(atPath: destination.path + ".part")
        state.withLock {
            $0.reports.append(progress)
            $0.finalFileSeen = $0.finalFileSeen || finalExists
            $0.partMissing = $0.partMissing || !partExists
        }
    }

    var reports: [DownloadProgress] { state.withLock { $0.reports } }
    var finalFileSeen: Bool { state.withLock { $0.finalFileSeen } }
    var partMissing: Bool { state.withLock { $0.partMissing } }
}

func contents(_ url: URL) -> [UInt8]? {
    FileManager.default.contents(atPath: url.path).map { Array($0) }
}

func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

/// Runs `body` with a server, a downloader and a temporary folder.
func withDownloadSetup<R>(
    configuration: DownloadConfiguration = DownloadConfiguration(freeSpaceMargin: .none),
    _ body: (TestHTTPServer, MediaDownloader, URL) async throws -> R
) async throws -> R {
    try await withTestHTTPServer { server in
        try await withTemporaryDirectory { directory in
            try await MediaDownloader.withDownloader(configuration: configuration) { downloader in
                try await body(server, downloader, directory)
            }
        }
    }
}

/// Expects `body` to throw a ``DownloadError`` and returns it.
func expectDownloadError(_ body: () async throws -> Void) async -> DownloadError? {
    do {
        try await body()
        Issue.record("the download succeeded")
        return nil
    } catch let error as DownloadError {
        return error
    } catch {
        Issue.record("not a DownloadError: \(error)")
        return nil
    }
}

/// The partial file a download of `destination` writes until the episode is whole.
func partFile(_ destination: URL) -> URL { URL(fileURLWithPath: destination.path + ".part") }

/// What a failed download leaves of its partial file.
enum PartAfterFailure {
    /// Removed: nothing of the body is worth keeping (not the episode, no room, empty).
    case removed
    /// Kept, for the next run to resume.
    case kept
}

/// Downloads `request`, expects it to fail with a ``DownloadError`` and returns it, after checking what every failure
/// promises: no file stands under the final name. With `part`, also what became of the `.part`.
func expectFailure(
    _ downloader: MediaDownloader, _ request: MediaRequest, part: PartAfterFailure? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> DownloadError? {
    let error = await expectDownloadError { _ = try await downloader.download(request, progress: { _ in }) }
    expectLeftovers(of: request, part: part, sourceLocation: sourceLocation)
    return error
}

/// What every failed download promises: no file under the final name; with `part`, what became of the `.part`.
private func expectLeftovers(of request: MediaRequest, part: PartAfterFailure?, sourceLocation: SourceLocation) {
    #expect(
        !exists(request.destination), "a failed download left a file under the final name",
        sourceLocation: sourceLocation)
    switch part {
    case .removed:
        #expect(!exists(partFile(request.destination)), "the .part was kept", sourceLocation: sourceLocation)
    case .kept:
        #expect(exists(partFile(request.destination)), "the .part was removed", sourceLocation: sourceLocation)
    case nil: break
    }
}

/// As ``expectFailure(_:_:part:sourceLocation:)``, for a downloader on `clock`: once `bytes` of the body have
/// arrived (in real time), the clock moves on by `duration`, and the download is expected to fail then. A limit that
/// struck before (or a download that waits for anything but the clock) fails the test.
func expectFailure(
    _ downloader: MediaDownloader, _ request: MediaRequest, part: PartAfterFailure? = nil,
    whenClock clock: ManualClock, advancesBy duration: Duration, afterBytes bytes: Int64,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> DownloadError? {
    let received = Mutex<Int64>(0)
    let download = Task {
        try await downloader.download(
            request, progress: { progress in received.withLock { $0 = progress.receivedBytes } })
    }
    let arrived = await waitUntil { received.withLock { $0 } >= bytes }
    #expect(arrived, "\(bytes) bytes did not arrive", sourceLocation: sourceLocation)
    // The watchdog is the download's one sleeper: once it sleeps, it stays asleep until the clock moves (advancing
    // before it sleeps would let it start its sleep from the moved clock, and sleep past the limit).
    let watching = await clock.waitForSleepers(1)
    #expect(watching, "the download's watchdog never waited on the clock", sourceLocation: sourceLocation)
    await clock.advance(by: duration)
    let error = await expectDownloadError { _ = try await download.value }
    expectLeftovers(of: request, part: part, sourceLocation: sourceLocation)
    return error
}
