public import Foundation

/// A store that carries out one ``DownloadPlan`` in its own SQL: the one step each backend writes. Every change of
/// ``DownloadRepository`` (start, completion, failures, marks, retrying now) is built on it once, below, so the
/// rule of what each change writes lives in ``DownloadPlan`` and the forwarding lives here.
public protocol DownloadRecordStore: DownloadRepository {
    /// Carries out the ``DownloadPlan`` for `change` in one transaction: reads the episode's record (with its row
    /// locked where the database can lock it) and, when ``DownloadChange/mayCreateRecord``, whether the episode is
    /// stored; builds the plan; stores its record with every column. Returns the record as stored with the plan, or
    /// nil when the plan writes nothing.
    /// - Throws: ``StoreError`` `.notFound` (from the plan) when a start or a completion names an episode that is
    ///   not stored.
    func applyDownloadChange(
        _ change: DownloadChange, subscriptionID: Int64, episodeKey: String
    ) async throws -> AppliedDownloadChange?
}

/// What ``DownloadRecordStore/applyDownloadChange(_:subscriptionID:episodeKey:)`` wrote: the record as stored and
/// the plan that was carried out.
public struct AppliedDownloadChange: Sendable, Hashable {
    /// The record as the store holds it now.
    public var record: DownloadRecord
    /// The plan carried out.
    public var plan: DownloadPlan

    /// The record stored by carrying out `plan`.
    public init(record: DownloadRecord, plan: DownloadPlan) {
        self.record = record
        self.plan = plan
    }
}

extension DownloadRecordStore {
    @discardableResult
    public func recordDownloadStarted(_ start: DownloadStart) async throws -> DownloadRecord {
        try await applyDownloadChange(
            .started(start), subscriptionID: start.subscriptionID, episodeKey: start.episodeKey)?
            .record ?? Self.noDownload(start.subscriptionID, start.episodeKey)
    }

    @discardableResult
    public func recordDownloadCompleted(_ completion: DownloadCompletion) async throws -> DownloadRecord {
        try await applyDownloadChange(
            .completed(completion), subscriptionID: completion.subscriptionID, episodeKey: completion.episodeKey)?
            .record ?? Self.noDownload(completion.subscriptionID, completion.episodeKey)
    }

    @discardableResult
    public func recordDownloadFailed(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?
    ) async throws -> Bool {
        try await applyDownloadChange(
            .failed(error: error, partialBytes: partialBytes), subscriptionID: subscriptionID, episodeKey: episodeKey)
            != nil
    }

    public func recordPermanentFailure(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?, at: Date
    ) async throws -> RecordedFailure? {
        try await applyDownloadChange(
            .failedPermanently(error: error, partialBytes: partialBytes, at: at), subscriptionID: subscriptionID,
            episodeKey: episodeKey
        ).map { RecordedFailure(record: $0.record, isRepeat: $0.plan.isRepeatedFailure) }
    }

    public func recordTransientFailure(
        subscriptionID: Int64, episodeKey: String, error: String, partialBytes: Int64?, at: Date
    ) async throws -> RecordedFailure? {
        try await applyDownloadChange(
            .failedTransiently(error: error, partialBytes: partialBytes, at: at), subscriptionID: subscriptionID,
            episodeKey: episodeKey
        ).map { RecordedFailure(record: $0.record, isRepeat: $0.plan.isRepeatedFailure) }
    }

    @discardableResult
    public func allowRetryNow(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await applyDownloadChange(.retryNow, subscriptionID: subscriptionID, episodeKey: episodeKey) != nil
    }

    @discardableResult
    public func markRemovedByRetention(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await applyDownloadChange(.removedByRetention, subscriptionID: subscriptionID, episodeKey: episodeKey)
            != nil
    }

    @discardableResult
    public func markDeletedByUser(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await applyDownloadChange(.deletedByUser, subscriptionID: subscriptionID, episodeKey: episodeKey) != nil
    }

    @discardableResult
    public func allowDownloadAgain(subscriptionID: Int64, episodeKey: String) async throws -> Bool {
        try await applyDownloadChange(.allowedAgain, subscriptionID: subscriptionID, episodeKey: episodeKey) != nil
    }

    /// A start or a completion whose plan wrote nothing: the plan always writes one, so this is only a guard.
    private static func noDownload(_ subscriptionID: Int64, _ key: String) throws -> DownloadRecord {
        throw StoreError(.noDownload(episodeKey: key, subscriptionID: subscriptionID))
    }
}
