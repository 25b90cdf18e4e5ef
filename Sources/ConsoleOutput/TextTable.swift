/// A plain-text table with left-aligned columns, for `list` and `status`.
public enum TextTable {
    /// Renders rows under headers, columns separated by two spaces. Cells should already be sanitised.
    ///
    /// - Parameters:
    ///   - width: the widest a line may be, in terminal columns (a terminal's width); nil for no limit, so nothing
    ///     is ever cut (a pipe or a file gets every title whole, padded as it always was).
    ///   - shrinkable: the columns that may be cut, with "…", to fit `width` (e.g. titles and status text; ids and
    ///     counts never are). The widest shrinkable column gives way first, down to `minimumWidth`.
    /// - Returns: The lines joined with newlines. With a `width`, cells are measured as a terminal draws them (a wide
    ///   character or an emoji takes two columns) and cut between grapheme clusters.
    public static func render(
        headers: [String], rows: [[String]], width: Int? = nil, shrinkable: Set<Int> = [], minimumWidth: Int = 8
    ) -> String {
        guard let width else { return renderWhole(headers: headers, rows: rows) }
        var widths = headers.map(TerminalWidth.of)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], TerminalWidth.of(cell))
            }
        }
        var excess = widths.reduce(0, +) + 2 * max(0, widths.count - 1) - width
        while excess > 0 {
            guard
                let widest = shrinkable.filter({ $0 < widths.count && widths[$0] > minimumWidth })
                    .max(by: { (widths[$0], $1) < (widths[$1], $0) })
            else { break }
            widths[widest] -= 1
            excess -= 1
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                let fitted = index < widths.count ? TerminalWidth.fit(cell, to: widths[index]) : cell
                text += isLast ? fitted : TerminalWidth.pad(fitted, to: widths[index]) + "  "
            }
            return text
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }

    /// Every cell whole, columns padded by characters: what a pipe or a file has always been given.
    private static func renderWhole(headers: [String], rows: [[String]]) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                text +=
                    isLast || index >= widths.count
                    ? cell : cell + String(repeating: " ", count: max(0, widths[index] - cell.count) + 2)
            }
            return text
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }
}
