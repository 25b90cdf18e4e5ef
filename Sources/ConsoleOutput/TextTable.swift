#if canImport(Glibc)
import Glibc
#endif

/// A plain-text table with left-aligned columns, for `list` and `status`.
public enum TextTable {
    /// Renders rows under headers, columns separated by two spaces. Cells should already be sanitised.
    ///
    /// - Parameters:
    ///   - width: the widest a line may be (a terminal's width); nil for no limit, so nothing is ever cut (a pipe or
    ///     a file gets every title whole).
    ///   - shrinkable: the columns that may be cut, with "…", to fit `width` (e.g. titles and status text; ids and
    ///     counts never are). The widest shrinkable column gives way first, down to `minimumWidth`.
    public static func render(
        headers: [String], rows: [[String]], width: Int? = nil, shrinkable: Set<Int> = [], minimumWidth: Int = 8
    ) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        if let width {
            var excess = widths.reduce(0, +) + 2 * max(0, widths.count - 1) - width
            while excess > 0 {
                guard
                    let widest = shrinkable.filter({ $0 < widths.count && widths[$0] > minimumWidth })
                        .max(by: { (widths[$0], $1) < (widths[$1], $0) })
                else { break }
                widths[widest] -= 1
                excess -= 1
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let fitted = index < widths.count ? TerminalText.truncate(cell, to: widths[index]) : cell
                text +=
                    isLast ? fitted : fitted + String(repeating: " ", count: max(0, widths[index] - fitted.count) + 2)
            }
            return text
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }

    /// The width of the terminal standard output is, or nil when standard output is not a terminal (a pipe, a file).
    ///
    /// Asks the terminal (`TIOCGWINSZ`); when it does not say, `$COLUMNS`, else 80.
    public static func terminalWidth(environment: [String: String]) -> Int? {
        guard isatty(STDOUT_FILENO) == 1 else { return nil }
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let columns = environment["COLUMNS"].flatMap(Int.init), columns > 0 { return columns }
        return 80
    }
}
