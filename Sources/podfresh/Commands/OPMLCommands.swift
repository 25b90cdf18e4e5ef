import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedParsing
import Foundation

extension RootCommand {
    struct ImportOPML: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Subscribe to every feed in an OPML file (OPML 1 or 2); feeds already subscribed are skipped.")

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The OPML file; - (or /dev/stdin) reads standard input, e.g. a pipe.")
        var file: String

        func run() async throws {
            let bytes: [UInt8]
            do {
                bytes = try Self.read(file)
            } catch {
                Console.standard.error(SubscriptionMessages.cannotRead(file, error))
                throw ExitCode.validationFailure
            }
            let outlines: [OPMLOutline]
            do {
                outlines = try OPML.parse(bytes)
            } catch {
                Console.standard.error(SubscriptionMessages.notOPML(file, error))
                throw ExitCode.validationFailure
            }
            try await withStore(global) { open in
                let store = open.repositories
                var added = 0
                var duplicates = 0
                var invalid = 0
                for outline in outlines {
                    guard let url = outline.xmlURL, ["http", "https", "file"].contains(url.scheme?.lowercased() ?? "")
                    else {
                        invalid += 1
                        continue
                    }
                    do {
                        _ = try await store.addSubscription(url: url, title: outline.title, at: Date(), backlog: nil)
                        added += 1
                    } catch let error as StoreError where error.kind == .duplicate {
                        duplicates += 1
                    }
                }
                Console.standard.line(
                    SubscriptionMessages.imported(added: added, duplicates: duplicates, invalid: invalid))
            }
        }

        /// The whole of `file`, read until end of file: `-` is standard input, and a path may be a pipe or a device
        /// (`/dev/stdin`, `<(…)`), whose size is unknown until it ends.
        static func read(_ file: String) throws -> [UInt8] {
            let handle =
                file == "-"
                ? FileHandle.standardInput
                : try FileHandle(forReadingFrom: URL(fileURLWithPath: (file as NSString).expandingTildeInPath))
            defer { if file != "-" { try? handle.close() } }
            return Array(try handle.readToEnd() ?? Data())
        }
    }

    struct ExportOPML: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Print every subscription as an OPML 2.0 document.")

        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await withStore(global, access: .reading) { open in
                let store = open.repositories
                Console.standard.write(SubscriptionExport.opml(try await store.subscriptions()))
            }
        }
    }
}
