/// Whose notices are believed: the accounts that write podpings today, plus any account a feed names for itself.
///
/// An allow-list of the `@podping` account's followers would reject today's traffic, which comes from a handful of
/// writer accounts (`podping.aaa` … `podping.eee` and a few hosts' own); those are the default.
public struct PodpingTrust: Sendable, Hashable {
    /// The podping writer accounts that carry public traffic: Podcast Index's load-balanced writers and the hosts'
    /// and apps' own accounts that podping's own statistics follow (test accounts left out). They are the
    /// `podping.*` accounts of brianoflondon/hive-rc-auto's list of the accounts `@podping` lends resource credits
    /// to (`tests/test_rc_delegation.py`), less the test accounts `podping.test` and `podping.gittest`, and
    /// `podping.adam` (no source we read shows it writing notices).
    public static let knownWriters: Set<String> = [
        "podping", "podping.aaa", "podping.bbb", "podping.ccc", "podping.ddd", "podping.eee", "podping.bol",
        "podping.spk", "podping.curio", "podping.live", "podping.podverse", "podping.win", "podping.blubrry",
    ]

    /// Accounts whose notices are believed for every feed; nil believes every sender.
    public var senders: Set<String>?

    /// Trusts `senders` (by default ``knownWriters``); nil trusts everyone.
    public init(senders: Set<String>? = PodpingTrust.knownWriters) {
        self.senders = senders.map { Set($0.map { $0.lowercased() }) }
    }

    /// Whether a notice signed by `signers` is believed for a feed that names `feedAccounts` as its own senders
    /// and says `usesPodping` (false: the feed opted out, and no notice is believed).
    public func believes(signers: [String], feedAccounts: [String], usesPodping: Bool?) -> Bool {
        if usesPodping == false { return false }
        let signers = signers.map { $0.lowercased() }
        if feedAccounts.contains(where: { account in signers.contains(account.lowercased()) }) { return true }
        guard let senders else { return true }
        return signers.contains(where: senders.contains)
    }
}
