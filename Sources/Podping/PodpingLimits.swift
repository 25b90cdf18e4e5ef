/// How much one podping operation may carry before it is counted and skipped rather than read.
///
/// Hive itself caps a `custom_json`'s `json` at 8 KiB, which holds about 130 feed addresses; these limits are far
/// above what an honest writer sends and far below what could hurt.
public struct PodpingLimits: Sendable, Hashable {
    /// The largest `json` string read, in UTF-8 bytes.
    public var maxPayloadBytes: Int
    /// The most feed addresses one operation may name.
    public var maxIRIs: Int

    /// 64 KiB and 1000 addresses by default.
    public init(maxPayloadBytes: Int = 64 * 1024, maxIRIs: Int = 1000) {
        self.maxPayloadBytes = maxPayloadBytes
        self.maxIRIs = maxIRIs
    }
}
