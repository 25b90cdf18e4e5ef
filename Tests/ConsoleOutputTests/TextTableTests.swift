import ConsoleOutput
import Testing

struct TextTableTests {
    let headers = ["ID", "TITLE", "EPISODES", "STATUS"]
    let rows = [
        ["1", "A Remarkably Long Podcast Title That Goes On and On", "12", "failing ×3: HTTP 503 Service Unavailable"],
        ["22", "Short", "3", "ok"],
    ]

    @Test func withoutAWidthNothingIsCut() {
        let table = TextTable.render(headers: headers, rows: rows, width: nil, shrinkable: [1, 3])
        #expect(table.contains(rows[0][1]))
        #expect(table.contains(rows[0][3]))
        #expect(!table.contains("…"))
    }

    @Test(arguments: [40, 60, 80, 100])
    func withAWidthEveryLineFitsAndOnlyShrinkableColumnsAreCut(width: Int) {
        let table = TextTable.render(headers: headers, rows: rows, width: width, shrinkable: [1, 3])
        let lines = table.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= width }, "\(table)")
        #expect(lines[1].hasPrefix("1   A Remarkabl"))
        #expect(lines[1].contains("  12  "), "counts are never cut")
        #expect(lines[2].contains("Short") && lines[2].hasSuffix("ok"))
    }

    @Test func aWideEnoughWidthChangesNothing() {
        #expect(
            TextTable.render(headers: headers, rows: rows, width: 500, shrinkable: [1, 3])
                == TextTable.render(headers: headers, rows: rows))
    }
}
