public import Foundation
public import HTTPTransport
import Measures

/// A JSON-RPC client of one Hive API node, over the process's one network layer.
///
/// It asks two things: the head block (`condenser_api.get_dynamic_global_properties`) and a range of blocks
/// (`block_api.get_block_range`). Every failure is a ``HiveNodeError`` naming the node.
public struct HiveNodeClient: Sendable {
    /// The node's JSON-RPC endpoint, e.g. `https://api.hive.blog`.
    public let node: URL
    private let network: HTTPNetwork
    private let timeout: Duration
    private let maxResponseBytes: Int

    /// The head of the chain as one node sees it.
    public struct Head: Sendable, Hashable {
        /// `head_block_number`.
        public var number: Int64
        /// `time`: the head block's time.
        public var time: Date
    }

    /// A client of `node`; each request must be answered within `timeout`, in at most `maxResponseBytes`.
    public init(node: URL, network: HTTPNetwork, timeout: Duration = .seconds(10), maxResponseBytes: Int = 32 << 20) {
        self.node = node
        self.network = network
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// The node's head block.
    public func head() async throws(HiveNodeError) -> Head {
        let properties: RawProperties = try await call(
            method: "condenser_api.get_dynamic_global_properties", params: "[]")
        guard let number = properties.headBlockNumber, let text = properties.time,
            let time = HiveBlockDecoder.chainTime(text)
        else {
            throw HiveNodeError(node: node, .headIncomplete)
        }
        return Head(number: number, time: time)
    }

    /// Up to `count` blocks from `first` on, in order; fewer (or none) when the chain has not reached them yet.
    public func blocks(from first: Int64, count: Int, limits: PodpingLimits) async throws(HiveNodeError) -> [HiveBlock]
    {
        let range: RawBlockRange = try await call(
            method: "block_api.get_block_range", params: "{\"starting_block_num\":\(first),\"count\":\(count)}")
        do {
            return try HiveBlockDecoder.blocks(fromRange: range, firstNumber: first, limits: limits)
        } catch {
            throw HiveNodeError(node: node, .undecodableBlocks(detail: error.detail))
        }
    }

    // MARK: - JSON-RPC

    private func call<Result: Decodable>(method: String, params: String) async throws(HiveNodeError) -> Result {
        let request = HTTPNetwork.Request(
            url: node, method: .post, headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: Array("{\"jsonrpc\":\"2.0\",\"method\":\"\(method)\",\"params\":\(params),\"id\":1}".utf8))
        let profile = HTTPNetwork.Profile(
            decompressionRatioLimit: 100, connectTimeout: min(timeout, .seconds(5)), readTimeout: timeout)
        let bytes: [UInt8]
        let status: Int
        let retryAfter: String?
        do {
            let exchange = try await network.execute(
                request, profile: profile, maxRedirects: 3, deadline: .now + timeout)
            status = exchange.response.status
            retryAfter = exchange.response.headers.first(name: "Retry-After")
            bytes = try await exchange.response.body.collect(upTo: maxResponseBytes)
        } catch is HTTPNetwork.BodyTooLarge {
            throw HiveNodeError(node: node, .tooLarge(method: method, maxBytes: maxResponseBytes))
        } catch {
            // The client's own deadline is this call's time limit; any other failure leaves the node unreachable.
            if case .timedOut = TransportFailure(error, url: node, profile: profile, timeout: timeout) {
                throw HiveNodeError(node: node, .timedOut(method: method))
            }
            throw HiveNodeError(node: node, .unreachable(reason: ErrorWords.describe(error)))
        }
        guard status == 200 else {
            if status == 429 {
                throw HiveNodeError(node: node, .rateLimited(retryAfter: retryAfter))
            }
            throw HiveNodeError(node: node, .httpStatus(method: method, status: status))
        }
        let envelope: RawEnvelope<Result>
        do {
            envelope = try JSONDecoder().decode(RawEnvelope<Result>.self, from: Data(bytes))
        } catch {
            throw HiveNodeError(node: node, .notJSONRPC(method: method, detail: HiveBlockDecoder.describe(error)))
        }
        if let error = envelope.error {
            throw HiveNodeError(node: node, .rpcError(method: method, code: error.code, message: error.message))
        }
        guard let result = envelope.result else {
            throw HiveNodeError(node: node, .emptyAnswer(method: method))
        }
        return result
    }
}

struct RawEnvelope<Result: Decodable>: Decodable {
    let result: Result?
    let error: RawRPCError?
}

struct RawRPCError: Decodable {
    let code: Int?
    let message: String?
}

struct RawProperties: Decodable {
    let headBlockNumber: Int64?
    let time: String?

    enum CodingKeys: String, CodingKey {
        case headBlockNumber = "head_block_number"
        case time
    }
}
