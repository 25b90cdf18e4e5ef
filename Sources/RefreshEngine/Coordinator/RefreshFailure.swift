/// Why one feed's refresh failed, with a stable kind for the store and JSON output.
public struct RefreshFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable kind: a `FeedFetchError.Kind`, `FeedParseError.Kind` or `StoreError.Kind` raw value.
    public var kind: String
    /// What went wrong and, where possible, what to do, on one line.
    public var message: String
    /// The HTTP status, when a server answered.
    public var status: Int?

    public init(kind: String, message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    public var description: String { message }
}
