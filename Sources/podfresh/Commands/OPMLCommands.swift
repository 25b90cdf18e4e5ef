import ArgumentParser
import ConsoleOutput
import FeedParsing
import FeedStorage
import Foundation

extension RootCommand {
    struct ImportOPML: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Subscribe to every feed in an OPML file (OPML 1 or 2); feeds already subscribed are skipped.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The OPML file.")
        var file: String

        func run() async throws {
            let bytes: [UInt8]
            do {
                bytes = try Array(Data(contentsOf: URL(fileURLWithPath: (file as NSString).expandingTildeInPath)))
            } catch {
                Console.error("cannot read \(file): \(error.localizedDescription)")
                throw ExitCode.validationFailure
            }
            let outlines: [OPMLOutline]
            do {
                outlines = try OPML.parse(bytes)
            } catch {
                Console.error("\(file) is not an OPML subscription list: \(error)")
                throw ExitCode.validationFailure
            }
            let store = try openStore(global)
            var added = 0
            var duplicates = 0
            var invalid = 0
            for outline in outlines {
                guard let url = outline.xmlURL, ["http", "https", "file"].contains(url.scheme?.lowercased() ?? "") else {
                    invalid += 1
                    continue
                }
                do {
                    _ = try store.addSubscription(url: url, title: outline.title, at: Date())
                    added += 1
                } catch let error as StoreError where error.kind == .duplicate {
                    duplicates += 1
                }
            }
            var line = "imported \(added) feed\(added == 1 ? "" : "s")"
            if duplicates > 0 { line += ", skipped \(duplicates) already subscribed" }
            if invalid > 0 { line += ", ignored \(invalid) without a usable http(s) feed URL" }
            Console.line(line)
        }
    }

    struct ExportOPML: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Print every subscription as an OPML 2.0 document.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            let store = try openStore(global)
            let outlines = try store.subscriptions().map {
                OPMLOutline(title: $0.title, xmlURL: $0.url, htmlURL: $0.link)
            }
            FileHandle.standardOutput.write(Data(OPML.document(title: "podfresh subscriptions", outlines: outlines).utf8))
        }
    }
}
