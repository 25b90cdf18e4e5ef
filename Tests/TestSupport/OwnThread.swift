import Foundation

/// Runs blocking `work` (a child process waited for, a pipe read to its end) on a thread of its own and waits for it
/// without holding a thread of Swift's cooperative pool: that pool has one thread per core, and tests that block
/// them starve every other test running side by side.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
