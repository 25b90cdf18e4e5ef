import Foundation
import Synchronization
import Testing

@testable import RefreshEngine

/// How many hold a slot now, and the most at once.
private final class Holders: Sendable {
    private let counts = Mutex((now: 0, most: 0))

    func enter() {
        counts.withLock {
            $0.now += 1
            $0.most = max($0.most, $0.now)
        }
    }

    func leave() { counts.withLock { $0.now -= 1 } }
    var most: Int { counts.withLock { $0.most } }
}

/// The order in which waiters got their slot.
private final class Order: Sendable {
    private let list = Mutex<[String]>([])

    func append(_ name: String) { list.withLock { $0.append(name) } }
    var names: [String] { list.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(1)))
struct ProcessingSlotsTests {
    @Test func noMoreHoldersThanSlotsAndEveryWaiterGetsOne() async throws {
        let slots = ProcessingSlots(count: 3)
        let holding = Holders()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await slots.acquire()
                    holding.enter()
                    try await Task.sleep(for: .milliseconds(10))
                    holding.leave()
                    slots.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(holding.most == 3)
        #expect(slots.available == 3)
    }

    @Test func aCancelledWaiterLeavesTheQueueAndTakesNoSlot() async throws {
        let slots = ProcessingSlots(count: 1)
        try await slots.acquire()
        let waiter = Task { try await slots.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        slots.release()
        #expect(slots.available == 1)
    }

    @Test func aRetriedFetchHoldsOneSlotAndGivesItBackOnce() async throws {
        let slots = ProcessingSlots(count: 2)
        let permit = ProcessingPermit(slots)
        try await permit.take()
        try await permit.take()
        #expect(slots.available == 1)
        permit.giveBack()
        permit.giveBack()
        #expect(slots.available == 2)
    }

    @Test func newFetchesAreNotAdmittedWhileTheBacklogIsFullAndAreAsItDrains() async throws {
        let slots = ProcessingSlots(count: 1, backlog: 2)
        try await slots.acquire()
        #expect(slots.admitsNow)
        // Two answers wait for the one slot: the backlog is full.
        let waiting = (0..<2).map { _ in Task { try await slots.acquire() } }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!slots.admitsNow, "a fetch may start while the backlog is full")
        slots.release()  // the first waiter takes the slot: one answer waits now, so a fetch may start
        try await Task.sleep(for: .milliseconds(50))
        #expect(slots.admitsNow)
        slots.release()
        slots.release()
        for task in waiting { try await task.value }
        #expect(slots.available == 1)
    }

    @Test func waitersTakeSlotsInTheOrderTheyCameExceptUrgentOnesWhichGoAheadOfTheRest() async throws {
        let slots = ProcessingSlots(count: 1)
        try await slots.acquire()
        let order = Order()
        var tasks: [Task<Void, any Error>] = []
        // Queued one after the other: a small host's answer, two of the busiest host's, then another small one.
        for (name, urgent) in [("small-1", false), ("busy-1", true), ("busy-2", true), ("small-2", false)] {
            tasks.append(
                Task {
                    try await slots.acquire(urgent: urgent)
                    order.append(name)
                    slots.release()
                })
            try await Task.sleep(for: .milliseconds(30))
        }
        slots.release()
        for task in tasks { try await task.value }
        #expect(order.names == ["busy-1", "busy-2", "small-1", "small-2"])
    }

    @Test func anUrgentAnswerTakesASlotBeyondTheCountWhileAllAreHeldUpToTheExtraAndThoseComeBackFirst() async throws {
        let slots = ProcessingSlots(count: 2, urgentExtra: 1)
        try await slots.acquire()
        try await slots.acquire()
        try await slots.acquire(urgent: true)
        #expect(slots.available == -1, "one urgent answer holds a slot beyond the two")
        // A second urgent answer finds the extra taken: it waits, ahead of the answer that came before it.
        let order = Order()
        let plain = Task {
            try await slots.acquire()
            order.append("plain")
        }
        try await Task.sleep(for: .milliseconds(50))
        let urgent = Task {
            try await slots.acquire(urgent: true)
            order.append("urgent")
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(order.names.isEmpty, "nothing is free and the extra is taken: both wait")
        slots.release()
        try await Task.sleep(for: .milliseconds(50))
        #expect(order.names.isEmpty, "the first slot back repays the extra; nobody is woken")
        #expect(slots.available == 0)
        slots.release()
        try await urgent.value
        #expect(order.names == ["urgent"], "the next slot goes to the urgent waiter")
        slots.release()
        try await plain.value
        #expect(order.names == ["urgent", "plain"])
        slots.release()
        slots.release()
        #expect(slots.available == 2)
    }

    @Test func anAnswerThatIsNotUrgentNeverTakesMoreThanTheCount() async throws {
        let slots = ProcessingSlots(count: 1, urgentExtra: 3)
        try await slots.acquire()
        let waiter = Task { try await slots.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        #expect(slots.available == 0, "an answer that is not urgent waits")
        slots.release()
        try await waiter.value
        slots.release()
        #expect(slots.available == 1)
    }
}
