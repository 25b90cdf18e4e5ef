import ArgumentParser
import FeedModels
import Foundation

/// `--no-sync`, for `refresh` and `watch`: once `sync setup` was run, both sync with the server first.
struct SyncRunOptions: ParsableArguments {
    @Flag(help: "Do not sync with the gPodder server this time, though sync is set up (podfresh sync setup).")
    var noSync = false
}

/// `watch`'s `--sync-interval`.
struct SyncIntervalOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "How often watch syncs with the gPodder server, once sync is set up (a sync that finds nothing costs a few milliseconds).",
            valueName: "duration"))
    var syncInterval = DurationArgument("30s")

    func validate() throws {
        guard syncInterval.seconds.isFinite, syncInterval.seconds >= 1 else {
            throw ValidationError("Please give a --sync-interval of at least 1s.")
        }
    }
}

/// `--api`: which flavour of the gPodder API the server speaks (a type of the executable's own, so the store's
/// ``SyncAPI`` needs no conformance to ArgumentParser's protocol).
enum SyncAPIArgument: String, ExpressibleByArgument, CaseIterable {
    case gpodder, nextcloud

    var api: SyncAPI {
        switch self {
        case .gpodder: .gpodder
        case .nextcloud: .nextcloud
        }
    }
}
