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
/// (``admitsNow``, asked by the coordinator before it starts a fetch). Only a host's first feed starts regardless:
/// its server's delay is unknown until it answers, and a slow one asked late would end the run late.
///
/// Answers take the slots first come, first served, except the busiest host's, which are urgent
/// (``acquire(urgent:)``): while every slot is held they take one of a few more (``urgentExtra``, its connections'
/// worth) instead of waiting, and when those are taken too they wait ahead of the rest. That host's queue is the
/// run's critical path, and each of its answers waiting here would hold one of its few connections. Every other
/// answer waits its turn: ranking them by how much their host has left would make a host with one slow feed wait
/// until the bigger hosts were done, although its answer ends the run.
///
/// ## Why this class is `@unchecked Sendable`
/// `free` and `waiters` are touched only inside `lock.withLock {}`; continuations are resumed outside
/// it.
public final class ProcessingSlots: @unchecked Sendable {
    /// The number of slots.
    public let count: Int
    /// The most answers waiting for a slot before new fetches wait to start.
    public let backlog: Int
    /// The most slots urgent answers may hold beyond ``count`` while every slot is held.
    public let urgentExtra: Int
    private let lock = NSLock()
    /// Slots free now; below zero while urgent answers hold slots beyond ``count`` (those are given back first).
    private var free: Int
    private var waiters: [(id: UUID, urgent: Bool, continuation: CheckedContinuation<Void, any Error>)] = []

    /// The default: five slots per core, 5 to 20. A slot is held from the answer's head to the merge, and on the
    /// internet most of that is the body arriving (at 5 MB/s a 1 MB feed takes 200 ms, its parse a few): with fewer
    /// slots the CPU waits for the network; with more, the peak of resident memory grows and the run ends no sooner,
    /// since the busiest host's answers never wait for a slot anyway (``urgentExtra``). The measurements behind the
    /// number are in docs/benchmarks.md.
    public static var defaultCount: Int { min(20, max(5, 5 * ProcessInfo.processInfo.activeProcessorCount)) }

    /// - Parameters:
    ///   - count: The slots.
    ///   - backlog: The most answers waiting for a slot while new fetches still start (default: twice the slots).
    ///   - urgentExtra: The most slots urgent answers may hold beyond `count` (default: none).
    public init(count: Int = ProcessingSlots.defaultCount, backlog: Int? = nil, urgentExtra: Int = 0) {
        self.count = max(1, count)
        self.backlog = max(1, backlog ?? 2 * self.count)
        self.urgentExtra = max(0, urgentExtra)
        free = self.count
    }

    /// Whether a new fetch may start now: fewer than ``backlog`` answers wait for a slot. When the slots are the
    /// bottleneck (the CPU parsing), more fetches in flight would only pile up answers.
    public var admitsNow: Bool { lock.withLock { waiters.count < backlog } }

    /// Waits for a slot, first come first served. An `urgent` caller takes a slot beyond ``count`` when none is free,
    /// while fewer than ``urgentExtra`` are so taken, and otherwise waits ahead of every caller that is not urgent.
    /// Throws `CancellationError` when the task is cancelled while it waits.
    public func acquire(urgent: Bool = false) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let granted: Bool = lock.withLock {
                    if free > 0 && waiters.isEmpty {
                        free -= 1
                        return true
                    }
                    if urgent && free > -urgentExtra {
                        free -= 1
                        return true
                    }
                    let place = urgent ? (waiters.firstIndex { !$0.urgent } ?? waiters.endIndex) : waiters.endIndex
                    waiters.insert((id, urgent, continuation), at: place)
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

    /// Gives a slot back: first the slots urgent answers took beyond ``count``, then to the first waiter, if any.
    public func release() {
        let next = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            if free < 0 || waiters.isEmpty {
                free = min(count, free + 1)
                return nil
            }
            return waiters.removeFirst().continuation
        }
        next?.resume()
    }

    /// Slots free now (negative while urgent answers hold that many beyond ``count``).
    public var available: Int { lock.withLock { free } }
}

/// One feed's hold on a ``ProcessingSlots`` slot: taken at most once however often the fetch makes a consumer (a
/// retried fetch makes two), given back once.
///
/// ## Why this class is `@unchecked Sendable`
/// `held` is touched only inside `lock.withLock {}`.
final class ProcessingPermit: @unchecked Sendable {
    private let slots: ProcessingSlots?
    private let urgent: Bool
    private let lock = NSLock()
    private var held = false

    init(_ slots: ProcessingSlots?, urgent: Bool = false) {
        self.slots = slots
        self.urgent = urgent
    }

    /// Takes a slot unless this permit holds one already.
    func take() async throws {
        guard let slots, !lock.withLock({ held }) else { return }
        try await slots.acquire(urgent: urgent)
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
