import Foundation

/// Threads of podfresh's own for blocking SQLite work, started as work comes and ended when none is left.
///
/// A database call blocks its thread: while it waits for the one writer, or for the disk. On Linux, Swift's
/// cooperative pool and Dispatch's global queues share the same few worker threads (one per core), so a blocking call
/// run on a Dispatch queue took a thread the refresh's parsing needed: on two cores, a cold refresh of 1000 feeds over
/// the simulated internet ended 3-7 s later (docs/benchmarks.md). A thread here blocks only itself.
enum DatabaseThreads {
    /// The most threads at once: one per core to keep the CPU busy with reads while a write runs, and at least three,
    /// so that a write waiting for the writer never leaves reads without a thread. More work waits its turn.
    static let maximumThreads = max(3, ProcessInfo.processInfo.activeProcessorCount + 1)

    private static let lock = NSLock()
    nonisolated(unsafe) private static var running = 0
    nonisolated(unsafe) private static var waiting: [@Sendable () -> Void] = []

    /// Runs `job` on one of the threads, at once if one is free, else after the work queued before it.
    static func run(_ job: @escaping @Sendable () -> Void) {
        let startNow = lock.withLock {
            if running < maximumThreads {
                running += 1
                return true
            }
            waiting.append(job)
            return false
        }
        if startNow { startThread(with: job) }
    }

    private static func startThread(with first: @escaping @Sendable () -> Void) {
        let thread = Thread {
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
        thread.name = "podfresh-sqlite"
        thread.start()
    }
}
