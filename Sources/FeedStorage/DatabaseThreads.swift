import Foundation
import Measures

/// The threads blocking SQLite work runs on.
///
/// A database call blocks its thread: while it waits for the one writer, or for the disk. Run on a Dispatch queue, it
/// would take a thread the refresh's parsing needs: on two cores, a cold refresh of 1000 feeds over the simulated
/// internet ends 3-7 s later that way (docs/benchmarks.md).
///
/// Each store has threads of its own: a store's long write, or its wait for another connection's writer (up to the busy
/// timeout), never delays another store's work in the same process (`migrate`'s two stores; a test process, where
/// hundreds of stores ran on one shared set of three and one test's contention stalled the rest). A command opens one
/// store, so this is the process's set.
enum DatabaseThreads {
    /// A new set for one store: one thread per core to keep the CPU busy with reads while a write runs, and at least
    /// three, so that a write waiting for the writer never leaves reads without a thread. A cap of 16 is slower and
    /// larger (docs/benchmarks.md). Threads start when work arrives and end when none waits.
    static func forOneStore() -> BlockingThreads {
        BlockingThreads(name: "podfresh-sqlite", maximum: max(3, ProcessInfo.processInfo.activeProcessorCount + 1))
    }
}
