import Foundation
import HTTPTransport
import NIOConcurrencyHelpers
import Podping
import TestSupport
import Testing

/// Reading the chain through several nodes on 127.0.0.1 that fail, lag, rate-limit and time out.
struct PodpingReaderTests {
    /// Runs `body` with a fake chain on a test server, a network, and a way to build readers that record the node
    /// failures they hear of.
    func withChain(
        _ body: (FakeHiveChain, (_ nodes: [URL], _ timeout: Duration) -> (PodpingReader, Failures)) async throws -> Void
    ) async throws {
        try await withTestHTTPServer { server in
            let chain = FakeHiveChain(server: server)
            try await HTTPNetwork.withNetwork { network in
                try await body(chain) { nodes, timeout in
                    let failures = Failures()
                    let reader = PodpingReader(
                        configuration: PodpingReaderConfiguration(nodes: nodes, requestTimeout: timeout),
                        network: network, onNodeFailure: { failures.add($0) })
                    return (reader, failures)
                }
            }
        }
    }

    final class Failures: Sendable {
        private let box = NIOLockedValueBox<[HiveNodeError]>([])
        func add(_ error: HiveNodeError) { box.withLockedValue { $0.append(error) } }
        var all: [HiveNodeError] { box.withLockedValue { $0 } }
    }

    @Test(.timeLimit(.minutes(1)))
    func theHeadAndNewBlocksAreReadAndABlockNotYetProducedIsNoError() async throws {
        try await withChain { chain, makeReader in
            let (reader, failures) = makeReader([chain.node("/a")], .seconds(5))
            let start = try await reader.head().number
            #expect(start == chain.head)
            let none = try await reader.blocks(from: start + 1, through: start + 10)
            #expect(none.isEmpty, "nothing produced yet")
            chain.produce([[.podping(["https://feeds.example.org/one.xml"])]])
            chain.produce()
            let blocks = try await reader.blocks(from: start + 1, through: start + 10)
            #expect(blocks.map(\.number) == [start + 1, start + 2])
            #expect(blocks[0].notices.first?.iris == ["https://feeds.example.org/one.xml"])
            #expect(failures.all.isEmpty)
            #expect(
                chain.calls(to: "/a") == ["condenser_api.get_dynamic_global_properties"]
                    + Array(
                        repeating: "block_api.get_block_range", count: 2))
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aNodeAnsweringAJSONRPCErrorIsLeftForTheNextAndTheErrorIsNamed() async throws {
        try await withChain { chain, makeReader in
            let bad = chain.node("/bad", fault: .rpcError(code: -32003, message: "Unable to acquire database lock"))
            let (reader, failures) = makeReader([bad, chain.node("/good")], .seconds(5))
            let head = try await reader.head().number
            #expect(head == chain.head)
            let failure = try #require(failures.all.first)
            #expect(failure.kind == .rpc)
            #expect(failure.node == bad)
            #expect(
                failure.reason
                    == .rpcError(
                        method: "condenser_api.get_dynamic_global_properties", code: -32003,
                        message: "Unable to acquire database lock"))
            // The working node stays in use.
            _ = try await reader.head()
            #expect(chain.calls(to: "/bad").count == 1)
            let current = await reader.currentNode
            #expect(current?.path == "/good")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func rateLimitingHTTPErrorsAndALaggingHeadEachMoveToTheNextNode() async throws {
        try await withChain { chain, makeReader in
            chain.produceEmpty(200)
            let nodes = [
                chain.node("/limited", fault: .rateLimited), chain.node("/broken", fault: .httpStatus(503)),
                chain.node("/behind", fault: .lagging(blocks: 100)), chain.node("/fine"),
            ]
            let (reader, failures) = makeReader(nodes, .seconds(5))
            let head = try await reader.head().number
            #expect(head == chain.head)
            #expect(failures.all.map(\.kind) == [.rateLimited, .httpStatus, .lagging])
            #expect(failures.all[0].reason == .rateLimited(retryAfter: "30"))
            #expect(
                failures.all[1].reason
                    == .httpStatus(method: "condenser_api.get_dynamic_global_properties", status: 503))
            guard case .headTooOld = failures.all[2].reason else {
                Issue.record("expected a head too old, got \(failures.all[2])")
                return
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aNodeFarBehindTheHighestHeadAnotherNodeGaveLags() async throws {
        try await withChain { chain, makeReader in
            let (reader, failures) = makeReader([chain.node("/first"), chain.node("/second")], .seconds(5))
            chain.produceEmpty(25)
            let head = try await reader.head().number
            #expect(head == chain.head)
            // The first node goes down; the second is 25 blocks behind (75 s: not stale by the clock alone).
            chain.setFault(.httpStatus(502), for: "/first")
            chain.setFault(.lagging(blocks: 25), for: "/second")
            await #expect(throws: PodpingUnavailable.self) { try await reader.head() }
            #expect(failures.all.map(\.kind) == [.httpStatus, .lagging])
            guard case .headBehind(_, blocks: 25)? = failures.all.last?.reason else {
                Issue.record("expected a head 25 blocks behind, got \(failures.all)")
                return
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func whenEveryNodeFailsTheReaderSaysWhyForEach() async throws {
        try await withChain { chain, makeReader in
            let (reader, _) = makeReader(
                [
                    chain.node("/x", fault: .httpStatus(500)),
                    chain.node("/y", fault: .rpcError(code: -32000, message: "boom")),
                ],
                .seconds(5))
            do {
                _ = try await reader.head()
                Issue.record("every node failed, yet the head was read")
            } catch let error as PodpingUnavailable {
                #expect(error.failures.count == 2)
                #expect(
                    error.failures.map(\.reason.self).first
                        == .httpStatus(method: "condenser_api.get_dynamic_global_properties", status: 500))
                #expect(
                    error.failures.last?.reason
                        == .rpcError(
                            method: "condenser_api.get_dynamic_global_properties", code: -32000, message: "boom"))
            }
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aNodeThatDoesNotAnswerInTimeIsLeft() async throws {
        try await withChain { chain, makeReader in
            let (reader, failures) = makeReader(
                [chain.node("/slow", fault: .slow(.seconds(30))), chain.node("/quick")], .seconds(3))
            let head = try await reader.head().number
            #expect(head == chain.head)
            #expect(failures.all.first?.kind == .timeout)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aStepStartsAtTheHeadReadsWhatFollowsAndSkipsAheadPastTheCatchUpLimit() async throws {
        try await withTestHTTPServer { server in
            let chain = FakeHiveChain(server: server)
            try await HTTPNetwork.withNetwork { network in
                let reader = PodpingReader(
                    configuration: PodpingReaderConfiguration(
                        nodes: [chain.node("/n")], batchSize: 5, maxCatchUpBlocks: 50),
                    network: network)
                let first = try await reader.step(after: nil)
                #expect(first.startedAtHead && first.blocks.isEmpty && first.cursor == chain.head)
                chain.produceEmpty(12)
                let batch = try await reader.step(after: first.cursor)
                #expect(batch.blocks.count == 5, "one request of at most batchSize blocks")
                #expect(batch.cursor == first.cursor + 5)
                #expect(batch.head == chain.head)
                chain.produceEmpty(100)
                let skip = try await reader.step(after: batch.cursor)
                #expect(skip.blocks.isEmpty)
                #expect(skip.cursor == chain.head - 50)
                #expect(skip.skippedBlocks == chain.head - 50 - batch.cursor)
            }
        }
    }
}
