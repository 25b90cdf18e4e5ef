public import Foundation

/// Why a Hive API node could not be used for one request; the reader then tries the next node.
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

    /// The node that failed.
    public let node: URL
    public let kind: Kind
    /// What went wrong, naming the node, for a message.
    public let message: String

    public init(node: URL, kind: Kind, message: String) {
        self.node = node
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}

/// Every node failed (or none is configured): the reader waits and tries again.
public struct PodpingUnavailable: Error, Sendable, CustomStringConvertible {
    /// The last failure of each node, in the order tried.
    public let failures: [HiveNodeError]

    public var description: String {
        failures.isEmpty
            ? "no podping node is configured"
            : "no podping node answered: " + failures.map(\.message).joined(separator: "; ")
    }
}
