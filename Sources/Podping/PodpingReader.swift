public import Foundation
public import HTTPTransport
import Measures

/// How a ``PodpingReader`` talks to the chain.
public struct PodpingReaderConfiguration: Sendable {
    /// The JSON-RPC endpoints, tried in order; a node that fails, lags or rate-limits is left for the next.
    public var nodes: [URL]
    /// Blocks asked for in one `get_block_range` (nodes allow up to 1000).
    public var batchSize: Int
    /// How long one request may take.
    public var requestTimeout: Duration
    /// A node whose head block is older than this (by this machine's clock) is lagging.
    public var maxHeadAge: TimeInterval
    /// A node whose head is this many blocks behind the highest head another node gave is lagging.
    public var maxBlocksBehind: Int64
    /// How often a follower asks for the head when it has read everything (blocks come every 3 s).
    public var pollInterval: Duration
    /// At most this many blocks are read to catch up; past it the reader skips ahead (and says so).
    public var maxCatchUpBlocks: Int64
    /// What one podping operation may carry.
    public var limits: PodpingLimits

    /// Public Hive API nodes that serve `block_api` and `condenser_api` to anyone, over HTTPS, without an account:
    /// those podping's own watchers use (Podcastindex-org/podping-hivewatcher `hive-watcher.py`: the first four;
    /// Podcastindex-org/podping.cloud `hive-watcher-js/hive-watcher.js`: anyx.io with three of them).
    public static let defaultNodes: [URL] = [
        "https://api.hive.blog", "https://api.deathwing.me", "https://api.openhive.network",
        "https://rpc.ausbit.dev", "https://anyx.io",
    ].map { URL(string: $0)! }

    public init(
        nodes: [URL] = PodpingReaderConfiguration.defaultNodes, batchSize: Int = 100,
        requestTimeout: Duration = .seconds(10), maxHeadAge: TimeInterval = 90, maxBlocksBehind: Int64 = 20,
        pollInterval: Duration = .seconds(1), maxCatchUpBlocks: Int64 = 28_800, limits: PodpingLimits = PodpingLimits()
    ) {
        self.nodes = nodes
        self.batchSize = batchSize
        self.requestTimeout = requestTimeout
        self.maxHeadAge = maxHeadAge
        self.maxBlocksBehind = maxBlocksBehind
        self.pollInterval = pollInterval
        self.maxCatchUpBlocks = maxCatchUpBlocks
        self.limits = limits
    }
}

/// Reads the Hive chain through a list of public nodes, failing over from one that errs, times out, rate-limits or
/// lags to the next. It knows nothing of feeds or stores: it gives blocks and their podping notices.
///
/// The node in use stays in use while it works; a failure moves to the next (round robin), and every failure is
/// told to `onNodeFailure` (for a message and a metric) before the next node is tried.
public actor PodpingReader {
    public let configuration: PodpingReaderConfiguration
    private let clients: [HiveNodeClient]
    private let onNodeFailure: @Sendable (HiveNodeError) -> Void
    private let now: @Sendable () -> Date
    private var current = 0
    /// The highest head any node gave: a node far behind it lags.
    private var bestHead: Int64 = 0

    /// A reader over `network`; `onNodeFailure` hears of each node that failed a request.
    public init(
        configuration: PodpingReaderConfiguration, network: HTTPNetwork,
        now: @escaping @Sendable () -> Date = { Date() },
        onNodeFailure: @escaping @Sendable (HiveNodeError) -> Void = { _ in }
    ) {
        self.configuration = configuration
        self.clients = configuration.nodes.map {
            HiveNodeClient(node: $0, network: network, timeout: configuration.requestTimeout)
        }
        self.onNodeFailure = onNodeFailure
        self.now = now
    }

    /// The node in use now.
    public var currentNode: URL? { clients.isEmpty ? nil : clients[current].node }

    /// The chain's head block, from the first node (starting with the one in use) that answers and does not lag.
    /// - Throws: ``PodpingUnavailable`` when every node failed.
    public func head() async throws -> HiveNodeClient.Head {
        try await withFailover { client in
            let head = try await client.head()
            let age = self.now().timeIntervalSince(head.time)
            if age > self.configuration.maxHeadAge {
                throw HiveNodeError(node: client.node, .headTooOld(block: head.number, seconds: Int(age)))
            }
            if head.number + self.configuration.maxBlocksBehind < self.bestHead {
                throw HiveNodeError(
                    node: client.node, .headBehind(block: head.number, blocks: self.bestHead - head.number))
            }
            self.bestHead = max(self.bestHead, head.number)
            return head
        }
    }

    /// The blocks from `first` through at most `last`, one request of at most ``PodpingReaderConfiguration/batchSize``
    /// blocks; fewer when a node has not produced them yet (then the caller asks again later).
    /// - Throws: ``PodpingUnavailable`` when every node failed.
    public func blocks(from first: Int64, through last: Int64) async throws -> [HiveBlock] {
        guard last >= first else { return [] }
        let count = Int(min(Int64(configuration.batchSize), last - first + 1))
        return try await withFailover { client in
            let blocks = try await client.blocks(from: first, count: count, limits: self.configuration.limits)
            for (offset, block) in blocks.enumerated() where block.number != first + Int64(offset) {
                throw HiveNodeError(node: client.node, .wrongBlock(got: block.number, asked: first + Int64(offset)))
            }
            return Array(blocks.prefix(count))
        }
    }

    /// Runs `body` on the node in use, then on each other node in turn until one succeeds.
    private func withFailover<T: Sendable>(
        _ body: (HiveNodeClient) async throws -> T
    ) async throws -> T {
        var failures: [HiveNodeError] = []
        for _ in clients.indices {
            let client = clients[current]
            do {
                return try await body(client)
            } catch {
                let failure =
                    error as? HiveNodeError
                    ?? HiveNodeError(node: client.node, .unexpected(reason: ErrorWords.describe(error)))
                failures.append(failure)
                onNodeFailure(failure)
                current = (current + 1) % clients.count
            }
        }
        throw PodpingUnavailable(failures: failures)
    }
}

/// What one step of reading the chain read.
public struct PodpingBatch: Sendable {
    /// The blocks read, in order (none when the step only found where to start, or skipped ahead).
    public var blocks: [HiveBlock]
    /// The last block read: the cursor to keep.
    public var cursor: Int64
    /// The chain's head when the step ran.
    public var head: Int64
    /// Blocks passed over unread because they were more than ``PodpingReaderConfiguration/maxCatchUpBlocks`` behind.
    public var skippedBlocks: Int64 = 0
    /// True when there was no cursor and reading starts at the head.
    public var startedAtHead = false

    public init(
        blocks: [HiveBlock], cursor: Int64, head: Int64, skippedBlocks: Int64 = 0, startedAtHead: Bool = false
    ) {
        self.blocks = blocks
        self.cursor = cursor
        self.head = head
        self.skippedBlocks = skippedBlocks
        self.startedAtHead = startedAtHead
    }
}

extension PodpingReader {
    /// One step from `cursor`: where to start when there is none, a skip ahead when too far behind, else the next
    /// batch of blocks up to the head (possibly none yet).
    /// - Throws: ``PodpingUnavailable`` when every node failed.
    public func step(after cursor: Int64?) async throws -> PodpingBatch {
        let head = try await head()
        guard let cursor else {
            return PodpingBatch(blocks: [], cursor: head.number, head: head.number, startedAtHead: true)
        }
        if head.number - cursor > configuration.maxCatchUpBlocks {
            let resume = head.number - configuration.maxCatchUpBlocks
            return PodpingBatch(blocks: [], cursor: resume, head: head.number, skippedBlocks: resume - cursor)
        }
        guard head.number > cursor else { return PodpingBatch(blocks: [], cursor: cursor, head: head.number) }
        let blocks = try await blocks(from: cursor + 1, through: head.number)
        return PodpingBatch(blocks: blocks, cursor: blocks.last?.number ?? cursor, head: head.number)
    }
}
