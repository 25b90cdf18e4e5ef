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
}
