import Synchronization

/// At most `jobs` downloads at once, at most `perHost` of them from one host (media CDNs ban clients that open many
/// connections). Waiters are served first come, first served among those whose host has room.
///
/// "First come" is the order of ``place(host:)``, which the queue calls for each job as it takes the job, in the order
/// jobs were queued; the job's task then waits with ``acquire(_:)``. The tasks may start in any order, so the order
/// cannot be the order in which they reach ``acquire(_:)``: under load, `--jobs 1` then downloaded the newest
/// episodes out of order.
final class DownloadSlots: Sendable {
    /// A place in line, from ``place(host:)``.
    struct Place: Sendable {
        fileprivate let id: Int
        fileprivate let host: String
    }

    private struct Waiter {
        var id: Int
        var host: String
        /// Nil until the place's task reaches ``acquire(_:)``.
        var continuation: CheckedContinuation<Void, any Error>?
    }

    private struct State {
        var running = 0
        var perHost: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextID = 0
        /// Places given a slot before their task reached ``acquire(_:)``.
        var granted: Set<Int> = []
        /// Places cancelled before their task reached ``acquire(_:)``.
        var cancelled: Set<Int> = []
    }

    private let jobs: Int
    private let perHost: Int
    private let state = Mutex(State())

    init(jobs: Int, perHost: Int) {
        self.jobs = max(1, jobs)
        self.perHost = max(1, perHost)
    }

    /// Takes a place in line for a download from `host`: a slot at once if one is free, else the next turn after the
    /// places taken before it. Every place must then be passed to ``acquire(_:)`` exactly once.
    func place(host: String) -> Place {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            if state.running < jobs && state.perHost[host, default: 0] < perHost {
                state.running += 1
                state.perHost[host, default: 0] += 1
                state.granted.insert(id)
            } else {
                state.waiters.append(Waiter(id: id, host: host, continuation: nil))
            }
            return Place(id: id, host: host)
        }
    }

    /// Waits for `place`'s turn; the slot is then held until ``release(host:)``.
    /// - Throws: `CancellationError` when the task is cancelled while it waits (it then holds no slot).
    func acquire(_ place: Place) async throws {
        let id = place.id
        if Task.isCancelled {
            // Stopped before its turn came, or before it could use the slot its place was given: give that back.
            let heldSlot = state.withLock { state in
                if state.granted.remove(id) != nil { return true }
                state.waiters.removeAll { $0.id == id }
                return false
            }
            if heldSlot { release(host: place.host) }
            throw CancellationError()
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resume: Bool? = state.withLock { state in
                    if state.granted.remove(id) != nil { return true }
                    if state.cancelled.remove(id) != nil { return false }
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return false }
                    state.waiters[index].continuation = continuation
                    return nil
                }
                switch resume {
                case true?: continuation.resume()
                case false?: continuation.resume(throwing: CancellationError())
                case nil: break
                }
            }
        } onCancel: {
            let waiting: CheckedContinuation<Void, any Error>? = state.withLock { state in
                // A place already given its slot keeps it: its task returns from `acquire` and releases it.
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                let waiter = state.waiters.remove(at: index)
                if waiter.continuation == nil { state.cancelled.insert(id) }
                return waiter.continuation
            }
            waiting?.resume(throwing: CancellationError())
        }
    }

    /// Gives back a slot of `host` and lets the next waiters that fit in.
    func release(host: String) {
        let resumed: [CheckedContinuation<Void, any Error>] = state.withLock { state in
            state.running -= 1
            state.perHost[host, default: 1] -= 1
            if state.perHost[host] == 0 { state.perHost[host] = nil }
            var resumed: [CheckedContinuation<Void, any Error>] = []
            var index = 0
            while index < state.waiters.count && state.running < jobs {
                let waiter = state.waiters[index]
                if state.perHost[waiter.host, default: 0] < perHost {
                    state.running += 1
                    state.perHost[waiter.host, default: 0] += 1
                    state.waiters.remove(at: index)
                    if let continuation = waiter.continuation {
                        resumed.append(continuation)
                    } else {
                        state.granted.insert(waiter.id)
                    }
                } else {
                    index += 1
                }
            }
            return resumed
        }
        for continuation in resumed { continuation.resume() }
    }
}
