import ArgumentParser
import Foundation
import Podping
import RefreshEngine

/// `--podping` and its options, for `refresh` and `watch`.
struct PodpingOptions: ParsableArguments {
    @Flag(
        help: """
            Read podping notices from the Hive chain (public API nodes, plain HTTPS) and check the feeds they name \
            now; polling on each feed's schedule goes on.
            """)
    var podping = false

    @Option(
        name: .customLong("podping-node"),
        help: ArgumentHelp(
            "A Hive API node to read from (repeatable; tried in order, failing over). Default: a list of public nodes.",
            valueName: "url"))
    var nodes: [String] = []

    @Option(
        name: .customLong("podping-sender"),
        help: ArgumentHelp(
            "Believe notices from this Hive account (repeatable; replaces the known podping writers; 'any' believes every sender). A feed's own <podcast:hiveAccount> is always believed.",
            valueName: "account"))
    var senders: [String] = []

    @Option(
        name: .customLong("podping-cooldown"),
        help: ArgumentHelp(
            "Check a pinged feed again no sooner than this after its last check (a burst of pings is one fetch).",
            valueName: "duration"))
    var cooldown = DurationArgument("30s")

    @Option(
        name: .customLong("podping-catch-up"),
        help: ArgumentHelp(
            "Read at most this much of the chain to catch up after a pause (blocks come every 3 s); past it podfresh skips ahead and says so.",
            valueName: "duration"))
    var catchUp = DurationArgument("24h")

    func validate() throws {
        if !podping && (!nodes.isEmpty || !senders.isEmpty) {
            throw ValidationError("--podping-node and --podping-sender need --podping.")
        }
        for node in nodes {
            guard let url = URL(string: node), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host?.isEmpty == false
            else {
                throw ValidationError(
                    "--podping-node \"\(node)\" is not an http(s) URL (such as https://api.hive.blog).")
            }
        }
        guard cooldown.seconds.isFinite else { throw ValidationError("Please give a finite --podping-cooldown.") }
        guard catchUp.seconds >= 3 else {
            throw ValidationError("Please give a --podping-catch-up of at least 3s (one block).")
        }
    }

    /// The settings, or nil without `--podping`.
    var settings: PodpingSettings? {
        guard podping else { return nil }
        var reader = PodpingReaderConfiguration()
        if !nodes.isEmpty { reader.nodes = nodes.compactMap(URL.init(string:)) }
        if catchUp.seconds.isFinite { reader.maxCatchUpBlocks = max(1, Int64(catchUp.seconds / 3)) }
        let trust: PodpingTrust
        if senders.isEmpty {
            trust = PodpingTrust()
        } else if senders.contains(where: { $0.lowercased() == "any" }) {
            trust = PodpingTrust(senders: nil)
        } else {
            trust = PodpingTrust(senders: Set(senders))
        }
        return PodpingSettings(
            reader: reader, trust: trust, cooldown: cooldown.seconds, lease: 30, worker: FleetSettings.thisProcess)
    }
}
