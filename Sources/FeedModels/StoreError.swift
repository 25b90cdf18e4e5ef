public import Foundation

/// A storage failure a user can act on.
public struct StoreError: Error, Hashable, CustomStringConvertible, LocalizedError {
    public enum Kind: String, Sendable, Hashable {
        /// The URL is already subscribed.
        case duplicate
        /// No subscription with that id.
        case notFound = "not-found"
        /// The database file could not be opened, migrated or written.
        case database
        /// A worker's lease on the feed ran out and another worker may have checked it: the check was not stored.
        case leaseLost = "lease-lost"
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}
