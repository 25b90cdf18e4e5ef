import ConsoleOutput
import Testing

struct ConsoleTests {
    let out = Buffer()
    let err = Buffer()
    var console: Console { Console(output: out, errors: err) }

    @Test func aLineEndsInANewlineOnStandardOutputOnly() {
        console.line("one")
        console.lines(["two", "three"])
        #expect(out.text == "one\ntwo\nthree\n")
        #expect(err.text.isEmpty)
    }

    @Test func anErrorIsOneLineOnStandardErrorNamingPodfresh() {
        console.error("something broke")
        #expect(err.text == "podfresh: something broke\n")
        #expect(out.text.isEmpty)
    }

    @Test func rawTextIsWrittenAsItIs() {
        console.write("<opml/>")
        console.write("\n")
        #expect(out.text == "<opml/>\n")
    }
}
