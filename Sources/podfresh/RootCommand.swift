import ArgumentParser

@main
struct RootCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podfresh",
        abstract: "Keep podcast subscriptions fresh: fetch every feed, store new episodes, say what is new.",
        discussion: """
            Exit status: 0 every feed refreshed or unchanged; 1 one or more feeds failed (the others were \
            still stored); 64 usage error; 70 internal or database error; 75 another refresh or watch holds the \
            database's lock; 130/143 a refresh stopped by SIGINT/SIGTERM (feeds in flight were stored, the rest not \
            checked).
            """,
        version: PodfreshVersion.current,
        subcommands: [
            Refresh.self, Watch.self, Add.self, Remove.self, Move.self, List.self, Status.self, Episodes.self,
            ImportOPML.self, ExportOPML.self, Parse.self,
        ],
        defaultSubcommand: Refresh.self
    )

    static func main() async {
        await main(Array(rewritingOptionalValues(CommandLine.arguments.dropFirst())))
    }

    /// `--wait` may stand alone (wait as long as it takes) or carry a duration (`--wait=5m`); ArgumentParser options
    /// always take a value, so a bare `--wait` becomes `--wait=forever`.
    static func rewritingOptionalValues(_ arguments: ArraySlice<String>) -> [String] {
        var result: [String] = []
        var passThrough = false
        for argument in arguments {
            if argument == "--" { passThrough = true }
            result.append(!passThrough && argument == "--wait" ? "--wait=forever" : argument)
        }
        return result
    }
}

enum PodfreshVersion {
    static let current = "0.1.0"
    static let userAgent = "podfresh/\(current) (+https://github.com/podfresh/podfresh)"
}
