/// A plain-text table with left-aligned columns, for `list` and `status`.
public enum TextTable {
    /// Renders rows under headers, columns separated by two spaces. Cells should already be sanitised.
    public static func render(headers: [String], rows: [[String]]) -> String {
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
                text += isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            return text
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }
}
