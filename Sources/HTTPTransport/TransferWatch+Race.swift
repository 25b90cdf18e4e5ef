extension TransferWatch {
    /// Runs `transfer` beside this watch's watchdog (``watch(limits:)``); the first to end decides. The transfer's
    /// result or error is the result; a limit that is over ends the transfer (its task is cancelled) and is thrown
    /// as ``TransferLimitExceeded``.
    ///
    /// The transfer runs in a child task while the caller waits for it, so it may use what the caller holds
    /// (a body consumer that is not `Sendable`, say): one task at a time touches it, and its result is handed back
    /// only once the transfer is done.
    ///
    /// - Throws: What `transfer` throws, ``TransferLimitExceeded``, or `CancellationError` when the caller is
    ///   cancelled.
    public func run<Result>(limits: TransferLimits, _ transfer: () async throws -> Result) async throws -> Result {
        try await withoutActuallyEscaping(transfer) { transfer in
            // Type-erased, so the child task captures no generic metadata (Result need not be Sendable).
            let erased = OneTaskAtATime<() async throws -> Any> { try await transfer() }
            let outcome = try await withThrowingTaskGroup(of: OneTaskAtATime<Any>?.self) { group in
                group.addTask { OneTaskAtATime(try await erased.value()) }
                group.addTask {
                    try await self.watch(limits: limits)
                    return nil
                }
                defer { group.cancelAll() }
                while let result = try await group.next() {
                    if let result { return result.value }
                }
                throw CancellationError()
            }
            guard let result = outcome as? Result else { throw CancellationError() }
            return result
        }
    }
}

/// Carries a value between the tasks of one structured scope where only one task uses it at a time: the transfer's
/// closure, used by its child task alone while the caller waits, and its result, handed back once that task is done.
private struct OneTaskAtATime<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
