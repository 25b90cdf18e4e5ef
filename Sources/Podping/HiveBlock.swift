public import Foundation

/// One block of the Hive chain as podfresh reads it: its number, when it was produced, and the podping notices in it.
public struct HiveBlock: Sendable, Hashable {
    /// The block's height (`block_num`), from the first four bytes of its `block_id`.
    public var number: Int64
    /// The block's `timestamp` (the chain's clock, UTC, whole seconds).
    public var time: Date
    /// The podping notices the block carries, in chain order.
    public var notices: [PodpingNotice]
    /// What the block carried that was not taken as a notice.
    public var skipped: PodpingSkips

    /// Creates a block from its parts (the decoder fills them from a node's answer).
    public init(number: Int64, time: Date, notices: [PodpingNotice] = [], skipped: PodpingSkips = PodpingSkips()) {
        self.number = number
        self.time = time
        self.notices = notices
        self.skipped = skipped
    }
}

/// One podping: a `custom_json` operation whose `id` is `podping` or starts with `pp_`, naming feeds that changed.
///
/// Example operation (a block's transaction, as `block_api.get_block_range` gives it):
/// `{"type":"custom_json_operation","value":{"required_auths":[],"required_posting_auths":["podping.aaa"],
/// "id":"pp_podcast_update","json":"{\"version\":\"1.0\",\"medium\":\"podcast\",\"reason\":\"update\",
/// \"iris\":[\"https://feeds.example.org/rss\"]}"}}`
public struct PodpingNotice: Sendable, Hashable {
    /// The block the notice was written in.
    public var blockNumber: Int64
    /// The block's time: when the chain took the notice.
    public var blockTime: Date
    /// The transaction's id, when the block lists it.
    public var transactionID: String?
    /// The operation's `id`, e.g. `pp_podcast_update` or `podping`.
    public var operationID: String
    /// The accounts that signed it (`required_posting_auths`, then `required_auths`).
    public var senders: [String]
    /// `update` (the default), `live` or `liveEnd`.
    public var reason: String
    /// `podcast` (the default), `music`, `video` …
    public var medium: String
    /// The feeds' addresses as written (`iris`, or the older `url` / `urls`).
    public var iris: [String]

    /// Creates a notice from its parts.
    public init(
        blockNumber: Int64, blockTime: Date, transactionID: String? = nil, operationID: String, senders: [String],
        reason: String = "update", medium: String = "podcast", iris: [String]
    ) {
        self.blockNumber = blockNumber
        self.blockTime = blockTime
        self.transactionID = transactionID
        self.operationID = operationID
        self.senders = senders
        self.reason = reason
        self.medium = medium
        self.iris = iris
    }
}

/// Operations a block carried that were not taken as notices, counted by why.
public struct PodpingSkips: Sendable, Hashable {
    /// Live-test pings (`podping-livetest`, `pplt_…`): ignored by design.
    public var tests = 0
    /// Podping operations whose `json` is not a JSON object, or names no feed.
    public var malformed = 0
    /// Podping operations whose `json` is larger than the limit.
    public var tooLarge = 0
    /// Podping operations naming more feeds than the limit.
    public var tooManyIRIs = 0

    /// No skips.
    public init(tests: Int = 0, malformed: Int = 0, tooLarge: Int = 0, tooManyIRIs: Int = 0) {
        self.tests = tests
        self.malformed = malformed
        self.tooLarge = tooLarge
        self.tooManyIRIs = tooManyIRIs
    }

    /// Every skip but the live tests: notices that were refused.
    public var refused: Int { malformed + tooLarge + tooManyIRIs }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: PodpingSkips) {
        tests += other.tests
        malformed += other.malformed
        tooLarge += other.tooLarge
        tooManyIRIs += other.tooManyIRIs
    }
}
