public import Foundation

/// A storage failure a user can act on.
public struct StoreError: Error, Hashable, CustomStringConvertible, LocalizedError, Codable {
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The URL is already subscribed.
        case duplicate
        /// No subscription with that id.
        case notFound = "not-found"
        /// The database file could not be opened, migrated or written.
        case database
        /// A worker's lease on the feed ran out and another worker may have checked it: the check was not stored.
        case leaseLost = "lease-lost"
    }

    /// What the user can do about a problem with the database's location; the console words it with the option a
    /// user types.
    public enum Remedy: Sendable, Hashable, Codable {
        /// Name a database file (the path given is empty, or a folder).
        case giveAFilePath
        /// Name another database file (this one is not podfresh's, or its folder is not usable).
        case useAnotherPath
        /// Run a command that writes, once, to upgrade a database an older podfresh wrote.
        case upgradeByWriting
    }

    public let kind: Kind
    /// What went wrong, on one line.
    public let message: String
    /// What to do about it, when the message alone does not say.
    public let remedy: Remedy?

    public init(kind: Kind, message: String, remedy: Remedy? = nil) {
        self.kind = kind
        self.message = message
        self.remedy = remedy
    }

    public var description: String { message }
    public var errorDescription: String? { message }
}
