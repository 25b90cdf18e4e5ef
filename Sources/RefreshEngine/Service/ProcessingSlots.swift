import Foundation

/// How many fetched feeds are read, parsed and stored at the same time, apart from how many wait on the network.
///
/// A fetch spends most of its time waiting for a server; only the body, the parse and the merge need memory and CPU.
/// So many fetches may wait at once (`--jobs`), while a few slots here bound what they hold once their answers come:
/// a feed takes a slot when its response head has arrived (before its body is read) and gives it back after its
/// merge. The body waits unread meanwhile (the server is held back by TCP, not buffered here).
///
/// A body waiting for a slot is not read, but what the connection had already read and decompressed of it (tens to
/// hundreds of kilobytes) waits in memory; so new fetches are admitted only while few answers wait
/// (``admitsNow``, asked by the coordinator before it starts a fetch).
///
/// ## Why this class is `@unchecked Sendable`
/// `free` and `waiters` are touched only inside `lock.withLock {}`; continuations are resumed outside
/// it.
public final class ProcessingSlots: @unchecked Sendable {
    /// The number of slots.
    public let count: Int
    /// The most answers waiting for a slot before new fetches wait to start.
    public let backlog: Int
    private let lock = NSLock()
    private var free: Int
    private var waiters: [(id: UUID, priority: Int, continuation: CheckedContinuation<Void, any Error>)] = []

    /// The default: six slots per core, 6 to 24. A slot is held from the answer's head to the merge, and on the
    /// internet most of that is the body arriving (at 5 MB/s a 1 MB feed takes 200 ms, its parse a few): with two
    /// per core the CPU waited for the network. On two cores, 16 slots ended a cold run of 1000 feeds on the
    /// simulated internet about 14% sooner than 4, and 32 no sooner than 16; once the allocator took less CPU
    /// (jemalloc), 12 ended it no later than 16 and peaked 10–15 MB lower in resident memory (docs/benchmarks.md).
    public static var defaultCount: Int { min(24, max(6, 6 * ProcessInfo.processInfo.activeProcessorCount)) }

    /// - Parameters:
    ///   - count: The slots.
    ///   - backlog: The most answers waiting for a slot while new fetches still start (default: twice the slots).
    public init(count: Int = ProcessingSlots.defaultCount, backlog: Int? = nil) {
        self.count = max(1, count)
        self.backlog = max(1, backlog ?? 2 * self.count)
        free = self.count
    }

    /// Whether a new fetch may start now: fewer than ``backlog`` answers wait for a slot. When the slots are the
    /// bottleneck (the CPU parsing), more fetches in flight would only pile up answers.
    public var admitsNow: Bool { lock.withLock { waiters.count < backlog } }

    /// Waits for a slot: the waiter with the highest `priority` first, first come first served among equals. Throws
    /// `CancellationError` when the task is cancelled while it waits.
    ///
    /// A refresh gives each feed its host's work left as its priority: the busiest host's feeds are the run's
    /// critical path, and each of them waiting here holds one of that host's few connections.
    public func acquire(priority: Int = 0) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted: Bool = lock.withLock {
                    if free > 0 && waiters.isEmpty {
                        free -= 1
                        return true
                    }
                    let place = waiters.firstIndex { $0.priority < priority } ?? waiters.endIndex
                    waiters.insert((id, priority, continuation), at: place)
                    return false
                }
                if granted { continuation.resume() }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
                guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return waiters.remove(at: index).continuation
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Gives a slot back (to the first waiter, if any).
    public func release() {
        let next = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            if waiters.isEmpty {
                free = min(count, free + 1)
                return nil
            }
            return waiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Slots free now.
    public var available: Int { lock.withLock { free } }
}

/// One feed's hold on a ``ProcessingSlots`` slot: taken at most once however often the fetch makes a consumer (a
/// retried fetch makes two), given back once.
///
/// ## Why this class is `@unchecked Sendable`
/// `held` is touched only inside `lock.withLock {}`.
final class ProcessingPermit: @unchecked Sendable {
    private let slots: ProcessingSlots?
    private let priority: Int
    private let lock = NSLock()
    private var held = false

    init(_ slots: ProcessingSlots?, priority: Int = 0) {
        self.slots = slots
        self.priority = priority
    }

    /// Takes a slot unless this permit holds one already.
    func take() async throws {
        guard let slots, !lock.withLock({ held }) else { return }
        try await slots.acquire(priority: priority)
        lock.withLock { held = true }
    }

    /// Gives the slot back, if one is held.
    func giveBack() {
        let wasHeld = lock.withLock {
            defer { held = false }
            return held
        }
        if wasHeld { slots?.release() }
    }
}
