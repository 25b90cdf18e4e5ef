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
    public func line(_ text: String) {
        output.write(text + "\n")
    }

    /// Writes each of `lines` as a line of its own on standard output.
    public func lines(_ lines: some Sequence<String>) {
        for text in lines { line(text) }
    }

    /// Writes `message` as one line on standard error, after "podfresh: ".
    public func error(_ message: String) {
        errors.write("podfresh: " + message + "\n")
    }

    /// Writes `text` to standard output as it is, adding nothing.
    public func write(_ text: String) {
        output.write(text)
    }
}
