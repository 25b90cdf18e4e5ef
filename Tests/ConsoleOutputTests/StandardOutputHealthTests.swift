import ConsoleOutput
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A write to standard output or standard error that fails is a value, recorded once, and decides what a command
/// does: the streams here are real descriptors (a pipe whose reader is gone, `/dev/full`), the record a fresh one.
struct StandardOutputHealthTests {
    /// A new pipe's two ends.
    func pipeEnds() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    /// A pipe whose reading end is already closed: every write to it fails with EPIPE (SIGPIPE is ignored, as
    /// podfresh's NIO ignores it: else the signal would end the test process).
    func pipeWithoutReader() throws -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let ends = try pipeEnds()
        close(ends.read)
        return ends.write
    }

    func devFull() throws -> Int32 {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        return descriptor
    }

    @Test
    func aWriteToAPipeNobodyReadsIsAClosedOutputAndNothingMoreIsWritten() throws {
        let health = StandardOutputHealth()
        let descriptor = try pipeWithoutReader()
        defer { close(descriptor) }
        let output = StandardStream(descriptor: descriptor, as: .output, health: health)
        #expect(throws: OutputFailure.closed) { try output.write("first line\n").get() }
        #expect(health.failure == .closed)
        #expect(health.failure?.exitStatus == 141)
        #expect(health.failure?.farewell == nil, "a reader that left is told nothing")

        // Standard error falls silent too, though its own descriptor is fine.
        let ends = try pipeEnds()
        defer {
            close(ends.read)
            close(ends.write)
        }
        let error = StandardStream(descriptor: ends.write, as: .error, health: health)
        #expect(throws: OutputFailure.closed) { try error.write("podfresh: late news\n").get() }
        var byte: UInt8 = 0
        _ = fcntl(ends.read, F_SETFL, O_NONBLOCK)
        #expect(read(ends.read, &byte, 1) == -1, "nothing reached standard error")
    }

    @Test
    func aFullDiskIsAnIOErrorWithStatus74AndAReason() throws {
        let health = StandardOutputHealth()
        let descriptor = try devFull()
        defer { close(descriptor) }
        let output = StandardStream(descriptor: descriptor, as: .output, health: health)
        #expect(throws: OutputFailure.unwritable(errno: ENOSPC)) { try output.write("line\n").get() }
        #expect(health.failure?.exitStatus == 74)
        #expect(health.failure?.farewell == "cannot write standard output: No space left on device")
    }

    @Test
    func aFullStandardErrorIsNotAnErrorOfItsOwn() throws {
        let health = StandardOutputHealth()
        let full = try devFull()
        defer { close(full) }
        let ends = try pipeEnds()
        defer {
            close(ends.read)
            close(ends.write)
        }
        let error = StandardStream(descriptor: full, as: .error, health: health)
        let output = StandardStream(descriptor: ends.write, as: .output, health: health)
        #expect(throws: OutputFailure.unwritable(errno: ENOSPC)) { try error.write("podfresh: a warning\n").get() }
        #expect(health.failure == nil, "the output is not broken")
        #expect(throws: Never.self) { try output.write("new episode\n").get() }
        var bytes = [UInt8](repeating: 0, count: 64)
        #expect(read(ends.read, &bytes, 64) == 12, "standard output goes on")
    }

    @Test
    func aStandardErrorWhoseReaderLeftBreaksTheOutputLikeAClosedStandardOutput() throws {
        let health = StandardOutputHealth()
        let descriptor = try pipeWithoutReader()
        defer { close(descriptor) }
        let error = StandardStream(descriptor: descriptor, as: .error, health: health)
        _ = error.write("podfresh: something\n")
        #expect(health.failure == .closed)
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaiterHearsOfTheFirstBreakOnceAndALateWaiterAtOnce() async throws {
        let health = StandardOutputHealth()
        let waiting = Task {
            var heard: [OutputFailure] = []
            for await failure in health.broken() { heard.append(failure) }
            return heard
        }
        // Let the waiter register before the break (it also hears of it if it registers after).
        try await Task.sleep(for: .milliseconds(50))
        health.record(.unwritable(errno: EIO), on: .output)
        health.record(.closed, on: .output)
        #expect(await waiting.value == [.unwritable(errno: EIO)], "the first failure, once")
        #expect(health.failure == .unwritable(errno: EIO))
        var late: [OutputFailure] = []
        for await failure in health.broken() { late.append(failure) }
        #expect(late == [.unwritable(errno: EIO)])
    }

    @Test
    func consoleLinesStopAtTheFirstLineThatCannotBeWritten() throws {
        let health = StandardOutputHealth()
        let descriptor = try devFull()
        defer { close(descriptor) }
        let console = Console(
            output: StandardStream(descriptor: descriptor, as: .output, health: health),
            errors: StandardStream(descriptor: descriptor, as: .error, health: health))
        #expect(throws: OutputFailure.unwritable(errno: ENOSPC)) { try console.lines(["a", "b", "c"]).get() }
    }
}
