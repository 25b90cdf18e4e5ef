import ArgumentParser

@main
struct RootCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podfresh",
        abstract: "Refresh podcast feeds and list new episodes."
    )
}
