import Synchronization

/// At most `jobs` downloads at once, at most `perHost` of them from one host (media CDNs ban clients that open many
/// connections). Waiters are served first come, first served among those whose host has room.
final class DownloadSlots: Sendable {
    private struct Waiter {
        var id: Int
        var host: String
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var running = 0
        var perHost: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID = 0
        /// Ids cancelled before they were queued (the cancellation handler ran first).
        var cancelled: Set<Int> = []
    }

    private let jobs: Int
    private let perHost: Int
    private let state = Mutex(State())

    init(jobs: Int, perHost: Int) {
        self.jobs = max(1, jobs)
        self.perHost = max(1, perHost)
    }

    /// Waits for a slot for `host`. - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire(host: String) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Bool? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return false }
                    if state.running < jobs && state.perHost[host, default: 0] < perHost {
                        state.running += 1
                        state.perHost[host, default: 0] += 1
                        return true
                    }
                    state.waiters.append(Waiter(id: id, host: host, continuation: continuation))
                    return nil
                }
                switch resume {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index)
                }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
        // Granted after the handler marked it cancelled-before-queued: the mark is stale.
        state.withLock { _ = $0.cancelled.remove(id) }
    }

    /// Gives back a slot of `host` and lets the next waiters that fit in.
    func release(host: String) {
        let granted: [Waiter] = state.withLock { state in
            state.running -= 1
            state.perHost[host, default: 1] -= 1
            if state.perHost[host] == 0 { state.perHost[host] = nil }
            var granted: [Waiter] = []
            var index = 0
            while index < state.waiters.count && state.running < jobs {
                let waiter = state.waiters[index]
                if state.perHost[waiter.host, default: 0] < perHost {
                    state.running += 1
                    state.perHost[waiter.host, default: 0] += 1
                    granted.append(state.waiters.remove(at: index))
                } else {
                    index += 1
                }
            }
            return granted
        }
        for waiter in granted { waiter.continuation.resume() }
    }
}
