import Foundation
import TestSupport
import Testing

/// End-to-end, the set-up a listener with a phone and a home server runs: the phone owns the subscriptions on a real
/// gPodder-API server on 127.0.0.1 (gpodder-fastapi-router in its venv, or the Nextcloud gPodder Sync server), and
/// the built binary runs `watch --download` with the default sync interval and `set --new-feeds --download on`. A
/// show the phone subscribes to (a direct API call to the server) ends with its newest episode on disk, and nothing
/// is run here in between.
@Suite(.serialized)
struct PhoneToDiskCommandTests {
    static let password = "phone-to-disk-password"
    /// The target: from the phone's subscription to the episode complete on disk, on loopback (the download of a
    /// few kilobytes takes milliseconds here).
    static let target = Duration.seconds(90)

    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    func phoneSubscriptionEndsOnDisk(_ kind: SyncTestServer.Kind) async throws {
        let (base, folder) = try DownloadCommandTests().podfresh()
        var podfresh = base
        defer { podfresh.cleanUp() }
        podfresh.environment["PODFRESH_SYNC_PASSWORD"] = Self.password
        try await withTestHTTPServer { feeds in
            NewFeedSettingsCommandTests.serve(feeds, path: "/show", title: "Phone Show", days: 1...3)
            try await withSyncTestServer(kind, directory: podfresh.directory, password: Self.password) { server in
                try await server.registerPhone()
                var setup = [
                    "sync", "setup", "--server", server.url.absoluteString, "--user", server.user, "--device", "box",
                    "--api", kind.rawValue,
                ]
                if kind == .gpodder { setup += ["--sync-with", "phone"] }
                let done = try await podfresh.run(setup)
                #expect(done.status == 0, "\(done.stderr)")
                #expect(try await podfresh.run(["set", "--new-feeds", "--download", "on"]).status == 0)

                try await podfresh.withRunning(["watch", "--download", "--json"]) { watch in
                    #expect(
                        await watch.waitForLine(containing: "\"sync_pulled\"", within: .seconds(60)),
                        "\(watch.transcript)")
                    // The API's cursors are whole seconds: a change in the second of the last pull is not "after" it.
                    try await Task.sleep(for: .milliseconds(1100))
                    let show = feeds.url("/show/feed.xml").absoluteString
                    let subscribed = ContinuousClock.now
                    try await server.phoneChanges(add: [show])

                    let landed = await watch.wait(within: Self.target + .seconds(30)) { text in
                        Self.jsonLines(text).contains {
                            $0["event"] as? String == "download_completed"
                                && ($0["file"] as? String)?.hasSuffix("2024-01-03 Day 3.mp3") == true
                        }
                    }
                    let took = ContinuousClock.now - subscribed
                    // The figure docs/sync.md quotes.
                    print("phone to disk through \(kind): \(took)")
                    #expect(landed, "\(watch.transcript)")
                    #expect(took < Self.target, "phone to disk took \(took)")
                    #expect(
                        DownloadCommandTests.files(in: folder) == ["Phone Show/2024-01-03 Day 3.mp3"],
                        "the newest episode, not the back catalogue")
                    #expect(feeds.requests(to: "/show/m/1.mp3").isEmpty && feeds.requests(to: "/show/m/2.mp3").isEmpty)
                }
            }
        }
    }

    @Test(
        .timeLimit(.minutes(4)),
        .enabled("needs the gpodder-fastapi-router venv (Scripts/sync-test-venv.sh, from PyPI)") {
            await SyncTestServer.gpodderAvailable()
        })
    func aShowSubscribedOnThePhoneEndsOnDiskThroughAGPodderServer() async throws {
        try await phoneSubscriptionEndsOnDisk(.gpodder)
    }

    @Test(.timeLimit(.minutes(4)), .enabled("needs python3") { SyncTestServer.nextcloudAvailable })
    func aShowSubscribedOnThePhoneEndsOnDiskThroughNextcloud() async throws {
        try await phoneSubscriptionEndsOnDisk(.nextcloud)
    }
}
