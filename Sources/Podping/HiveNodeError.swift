public import Foundation

/// Why a Hive API node could not be used for one request, as facts; the reader then tries the next node.
/// ConsoleOutput words it (`PodpingText`).
public struct HiveNodeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure, for counting and metrics labels.
    public enum Kind: String, Sendable, Hashable {
        /// No answer: refused, reset, name not found, TLS.
        case transport
        /// No answer within the time-out.
        case timeout
        /// An HTTP status other than 200.
        case httpStatus = "http_status"
        /// HTTP 429: the node asks us to slow down.
        case rateLimited = "rate_limited"
        /// A JSON-RPC `error` object.
        case rpc
        /// An answer that is not the JSON-RPC podfresh expects.
        case badAnswer = "bad_answer"
        /// The node's head block is far behind the chain's time or other nodes.
        case lagging
    }

    /// What went wrong with the node's answer (or its silence).
    public enum Reason: Sendable, Hashable {
        /// The request reached no answer (the HTTP client's or the system's reason text).
        case unreachable(reason: String)
        /// No answer to `method` within the time-out.
        case timedOut(method: String)
        /// HTTP 429, with the `Retry-After` the node sent.
        case rateLimited(retryAfter: String?)
        /// Another status than 200 to `method`.
        case httpStatus(method: String, status: Int)
        /// A JSON-RPC `error` object for `method`: its code and message.
        case rpcError(method: String, code: Int?, message: String?)
        /// An answer to `method` larger than `maxBytes`.
        case tooLarge(method: String, maxBytes: Int)
        /// An answer to `method` that is not JSON-RPC (the decoder's account of where).
        case notJSONRPC(method: String, detail: String)
        /// An answer to `method` with neither a result nor an error.
        case emptyAnswer(method: String)
        /// The global properties without a head block number or time.
        case headIncomplete
        /// A block range that is not the JSON podfresh expects (the decoder's account of where).
        case undecodableBlocks(detail: String)
        /// Block `got` where block `asked` was asked for.
        case wrongBlock(got: Int64, asked: Int64)
        /// The head block `block` is `seconds` old.
        case headTooOld(block: Int64, seconds: Int)
        /// The head block `block` is `blocks` behind the highest head another node gave.
        case headBehind(block: Int64, blocks: Int64)
        /// An error of a type podfresh did not expect: its reason text, or its type's name.
        case unexpected(reason: String)
    }

    /// The node that failed.
    public let node: URL
    /// What went wrong.
    public let reason: Reason

    public init(node: URL, _ reason: Reason) {
        self.node = node
        self.reason = reason
    }

    /// The kind of failure: follows from the reason.
    public var kind: Kind {
        switch reason {
        case .unreachable: .transport
        case .timedOut: .timeout
        case .rateLimited: .rateLimited
        case .httpStatus: .httpStatus
        case .rpcError: .rpc
        case .tooLarge, .notJSONRPC, .emptyAnswer, .headIncomplete, .undecodableBlocks, .wrongBlock, .unexpected:
            .badAnswer
        case .headTooOld, .headBehind: .lagging
        }
    }

    /// For logs and debugging only; ConsoleOutput words the reason for users.
    public var description: String { "HiveNodeError(\(node.absoluteString), \(reason))" }
}

/// Every node failed (or none is configured): the reader waits and tries again.
public struct PodpingUnavailable: Error, Sendable, Hashable, CustomStringConvertible {
    /// The last failure of each node, in the order tried.
    public let failures: [HiveNodeError]

    public init(failures: [HiveNodeError]) {
        self.failures = failures
    }

    /// For logs and debugging only; ConsoleOutput words it for users.
    public var description: String { "PodpingUnavailable(\(failures))" }
}
