import FeedParsing
import Testing

struct NotAFeedTests {
    @Test(arguments: [
        "<!doctype html>\n<html><body><p>Please sign in</p></body></html>",
        "<!DocType HTML><html lang=\"en\"><body>x</body></html>",
        "\n  <!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Strict//EN\"><html><body>x</body></html>",
        "<HTML><BODY>x</BODY></HTML>",
    ])
    func anHTMLPageIsNamedAsSuchWhateverTheCaseOfItsDoctype(page: String) throws {
        do {
            _ = try FeedParser.parse(Array(page.utf8))
            Issue.record("an HTML page parsed as a feed")
        } catch let error as FeedParseError {
            #expect(error.kind == .notAFeed)
            #expect(error.reason == .htmlPage)
        }
    }
}
