import Foundation

/// Where console text goes: standard output and standard error, or a buffer in tests.
public protocol TextSink: Sendable {
    /// Writes text as is (the caller adds newlines).
    func write(_ text: String)
}

/// The process's standard output or standard error.
public struct StandardStream: TextSink {
    private let isError: Bool

    /// Standard output.
    public static let output = StandardStream(isError: false)
    /// Standard error.
    public static let error = StandardStream(isError: true)

    public func write(_ text: String) {
        let handle = isError ? FileHandle.standardError : FileHandle.standardOutput
        handle.write(Data(text.utf8))
    }
}
