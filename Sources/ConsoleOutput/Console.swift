/// The writer for commands that print without a ``ConsoleRenderer``: whole lines to standard output, error lines to
/// standard error, and raw text (an OPML document) as it is.
///
/// Commands format nothing themselves: they gather data, ask a report (``SubscriptionList``, ``StatusReport``,
/// ``EpisodeList``, ``ParseSummary``, ``SubscriptionMessages``) for its text, and hand that text to a `Console`.
public struct Console: Sendable {
    /// Where lines and raw text go.
    public let output: any TextSink
    /// Where error lines go.
    public let errors: any TextSink

    /// The process's standard output and standard error.
    public static let standard = Console(output: StandardStream.output, errors: StandardStream.error)

    /// - Parameters:
    ///   - output: Standard output, or a buffer in tests.
    ///   - errors: Standard error, or a buffer in tests.
    public init(output: any TextSink, errors: any TextSink) {
        self.output = output
        self.errors = errors
    }

    /// Writes `text` and a newline to standard output, in one write.
    ///
    /// - Returns: Whether it was written (``StandardOutputHealth`` decides what a failure means for the command).
    @discardableResult
    public func line(_ text: String) -> Result<Void, OutputFailure> {
        output.write(text + "\n")
    }

    /// Writes each of `lines` as a line of its own on standard output, stopping at the first that cannot be written.
    @discardableResult
    public func lines(_ lines: some Sequence<String>) -> Result<Void, OutputFailure> {
        for text in lines {
            if case .failure(let failure) = line(text) { return .failure(failure) }
        }
        return .success(())
    }

    /// Writes `message` as one line on standard error, after "podfresh: ".
    public func error(_ message: String) {
        errors.write("podfresh: " + message + "\n")
    }

    /// Writes `text` to standard output as it is, adding nothing.
    @discardableResult
    public func write(_ text: String) -> Result<Void, OutputFailure> {
        output.write(text)
    }
}
