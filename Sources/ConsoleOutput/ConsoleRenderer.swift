public import Foundation
public import RefreshEngine

/// Listens to ``UIUpdateService``'s events and hands each to the style of its ``OutputMode`` (live terminal, plain
/// lines, quiet, JSON Lines). It never parses, fetches or stores anything, and holds nothing back: the engine decides
/// which failures wait for the network verdict.
///
/// ## Why this class is `@unchecked Sendable`
/// The style (which keeps the progress line's state) is touched only inside `lock.withLock {}`; updates arrive one at
/// a time from the service's delivery task, and the lock also serialises direct calls such as ``error(_:)``.
public final class ConsoleRenderer: @unchecked Sendable {
    public let mode: OutputMode
    private let lock = NSLock()
    private let style: any OutputStyle

    /// - Parameters:
    ///   - mode: How to draw.
    ///   - out: Standard output.
    ///   - err: Standard error.
    ///   - now: The clock used to throttle redraws and to say when the next check is.
    ///   - quietRepeats: `watch`: a feed's failure that repeats its last is counted, not printed again, and a
    ///     recovery is printed once. Cron mode (``OutputMode/quiet``) always does this; JSON Lines never leaves an
    ///     event out.
    ///   - wide: `--wide`: the live terminal prints every line whole, media URLs included, as a pipe gets them.
    ///   - width: The terminal's width, for the live terminal (default: asked of standard output each time, else
    ///     `$COLUMNS`, else 80).
    ///   - fitsPlainLines: Plain lines on a terminal (`add`, which draws no progress line): fitted to `width`.
    public init(
        mode: OutputMode,
        out: any TextSink = StandardStream.output,
        err: any TextSink = StandardStream.error,
        now: @escaping @Sendable () -> Date = { Date() },
        quietRepeats: Bool = false,
        wide: Bool = false,
        fitsPlainLines: Bool = false,
        width: @escaping @Sendable () -> Int = {
            TerminalWidth.columns(environment: ProcessInfo.processInfo.environment)
        }
    ) {
        self.mode = mode
        switch mode {
        case .tty:
            style = LiveTerminalOutput(
                out: out, err: err, now: now, quietRepeats: quietRepeats, wide: wide, width: width)
        case .plain:
            style = PlainLinesOutput(
                out: out, err: err, now: now, quietRepeats: quietRepeats,
                width: fitsPlainLines && !wide ? width : nil)
        case .quiet: style = QuietOutput(out: out, err: err, now: now, quietRepeats: true)
        case .json: style = JSONLinesOutput(out: out, err: err)
        }
    }

    /// Registers this renderer with the update service: every event goes to the style, one at a time.
    public func attach(to service: UIUpdateService) {
        service.onEvery { [self] event in lock.withLock { style.draw(event) } }
    }

    /// Prints a message as a whole line on standard error (clearing the progress line first).
    public func error(_ message: String) {
        lock.withLock { style.error(message) }
    }
}
