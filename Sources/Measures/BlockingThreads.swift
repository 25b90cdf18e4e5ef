import Foundation

/// Threads of podfresh's own for blocking calls (`getaddrinfo`, SQLite), started as work comes, up to a cap, and
/// ended when none is left; more work waits its turn, first come, first served.
///
/// On Linux, Swift's cooperative pool and Dispatch's global queues share the same few worker threads (one per core):
/// a blocking call run there takes a thread the rest of the program needs. A thread here blocks only itself.
///
/// ## Why this class is `@unchecked Sendable`
/// `running` and `waiting` are touched only inside `lock.withLock {}`; jobs run outside it.
public final class BlockingThreads: @unchecked Sendable {
    /// The most threads at once.
    public let maximum: Int
    private let name: String
    private let stackSize: Int?
    private let lock = NSLock()
    private var running = 0
    private var waiting: [@Sendable () -> Void] = []

    /// - Parameters:
    ///   - name: The threads' name (seen in `top -H`, `perf`, a debugger).
    ///   - maximum: The most threads at once.
    ///   - stackSize: Each thread's stack, in bytes; nil for the system's default.
    public init(name: String, maximum: Int, stackSize: Int? = nil) {
        self.name = name
        self.maximum = max(1, maximum)
        self.stackSize = stackSize
    }

    /// Runs `job` on one of the threads: at once if fewer than ``maximum`` run, else after the work queued before it.
    public func run(_ job: @escaping @Sendable () -> Void) {
        let startNow = lock.withLock {
            if running < maximum {
                running += 1
                return true
            }
            waiting.append(job)
            return false
        }
        if startNow { startThread(with: job) }
    }

    private func startThread(with first: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            var job: (@Sendable () -> Void)? = first
            while let current = job {
                current()
                job = lock.withLock {
                    if waiting.isEmpty {
                        running -= 1
                        return nil
                    }
                    return waiting.removeFirst()
                }
            }
        }
        thread.name = name
        if let stackSize { thread.stackSize = stackSize }
        thread.start()
    }
}
