import Foundation

/// Where output goes: standard output and standard error, or a buffer in tests.
public protocol TextSink: Sendable {
    /// Writes text as is (the caller adds newlines).
    ///
    /// - Returns: Whether the text was written; a sink never traps on a write that fails.
    @discardableResult
    func write(_ text: String) -> Result<Void, OutputFailure>
}

/// The process's standard output or standard error.
///
/// A write that fails is reported as a value and recorded in ``StandardOutputHealth/shared``, which decides what the
/// process does about it (stop, and exit 141 or 74); once output is broken, nothing more is written.
public struct StandardStream: TextSink {
    private let descriptor: Int32
    private let stream: StandardOutputHealth.Stream
    private let health: StandardOutputHealth

    /// Standard output.
    public static let output = StandardStream(descriptor: STDOUT_FILENO, as: .output)
    /// Standard error.
    public static let error = StandardStream(descriptor: STDERR_FILENO, as: .error)

    /// Writes to `descriptor` as the standard `stream`, recording failures in `health`; tests give a pipe of their
    /// own and a fresh record.
    public init(descriptor: Int32, as stream: StandardOutputHealth.Stream, health: StandardOutputHealth = .shared) {
        self.descriptor = descriptor
        self.stream = stream
        self.health = health
    }

    @discardableResult
    public func write(_ text: String) -> Result<Void, OutputFailure> {
        if let failure = health.refusal(for: stream) { return .failure(failure) }
        var text = text
        let result = text.withUTF8 { Self.writeAll($0, to: descriptor) }
        if case .failure(let failure) = result {
            health.record(failure, on: stream)
        }
        return result
    }

    /// Writes every byte of `bytes`, across partial writes, interrupted calls and a descriptor left non-blocking by
    /// another program sharing the terminal.
    static func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) -> Result<Void, OutputFailure> {
        guard var next = bytes.baseAddress else { return .success(()) }
        var left = bytes.count
        while left > 0 {
            let written = Foundation.write(descriptor, next, left)
            if written >= 0 {
                next += written
                left -= written
                continue
            }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            case let code:
                return .failure(OutputFailure(errno: code))
            }
        }
        return .success(())
    }
}
