import Foundation
import Measures

/// The threads blocking SQLite work runs on.
///
/// A database call blocks its thread: while it waits for the one writer, or for the disk. Run on a Dispatch queue, it
/// would take a thread the refresh's parsing needs: on two cores, a cold refresh of 1000 feeds over the simulated
/// internet ends 3-7 s later that way (docs/benchmarks.md).
enum DatabaseThreads {
    /// One per core to keep the CPU busy with reads while a write runs, and at least three, so that a write waiting for
    /// the writer never leaves reads without a thread. A cap of 16 is slower and larger (docs/benchmarks.md).
    static let shared = BlockingThreads(
        name: "podfresh-sqlite", maximum: max(3, ProcessInfo.processInfo.activeProcessorCount + 1))
}
