// INTERIM: replaced when the store branch lands.
public import Foundation
public struct RunLockError: Error, CustomStringConvertible { public var description: String }
public final class RunLock: Sendable {
    public static func acquire(forDatabaseAt path: String, wait: Duration?) async throws -> RunLock { RunLock() }
    public func release() {}
}
public enum DatabaseLocation {
    public static func resolve(explicit: String?, environment: [String: String]) -> String { explicit ?? "" }
}
