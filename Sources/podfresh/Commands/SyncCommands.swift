import ArgumentParser
import ConsoleOutput
import FeedModels
import FeedStorage
import Foundation
import GPodderSync
import RefreshEngine

extension RootCommand {
    /// `podfresh sync` (one sync now) and `podfresh sync setup`.
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract:
                "Sync subscriptions and episode actions with a gPodder server (gpodder.net API, Nextcloud gPodder Sync).",
            discussion: """
                Once set up (podfresh sync setup), refresh and watch sync first (--no-sync skips it), and watch syncs \
                every --sync-interval. Subscriptions added or removed here are sent to the server; those added or \
                removed on another device (a phone) are taken here. Downloads completed here are sent as episode \
                actions; what was played on another device is taken here (episodes --unplayed, download skips it, \
                set FEED --delete-played on deletes its file). See docs/sync.md.
                """,
            subcommands: [Now.self, Setup.self],
            defaultSubcommand: Now.self)
    }
}

extension RootCommand.Sync {
    /// `podfresh sync`: one sync now.
    struct Now: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "now", abstract: "Sync once now (the default: `podfresh sync`).")

        @OptionGroup var global: GlobalOptions
        @OptionGroup var lock: RunLockOptions

        @Flag(help: "Print JSON Lines: one object per event.")
        var json = false

        func run() async throws {
            let mode: OutputMode = json ? .json : .plain
            let runLock = try await acquireRunLock(global, wait: lock.wait)
            defer { runLock?.release() }
            let status = try await withRefreshEnvironment(
                global, fetch: try FetchOptions.parse([]), output: mode
            ) { environment -> ExitCode in
                guard let sync = try await environment.subscriptionSync() else {
                    environment.renderer.error(SyncText.notSetUp)
                    return ExitCode.validationFailure
                }
                let outcome = try await environment.withEvents { try await sync.syncOnce() }
                guard let outcome else {
                    environment.renderer.error(SyncText.heldElsewhere())
                    return .success
                }
                if outcome.failure != nil { return ExitStatus.feedsFailed }
                if !json {
                    Console.standard.line(SyncText.summary(outcome, server: sync.serverName))
                }
                return .success
            }
            if status != .success { throw status }
        }
    }

    /// `podfresh sync setup`.
    struct Setup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "setup",
            abstract: "Set sync up with a gPodder server, or forget it (--remove).",
            discussion: """
                The password comes from PODFRESH_SYNC_PASSWORD, else it is asked on the terminal without echo; it is \
                never an option (it would show in ps). It is kept readable by you alone: on SQLite in a file beside \
                the database (DATABASE.sync-password, mode 0600), on PostgreSQL in the database, for every worker. \
                The device is registered with the server as type "server"; the first sync takes the union of both \
                lists and removes nothing.
                """)

        @OptionGroup var global: GlobalOptions

        @Option(help: ArgumentHelp("The server's address (https; http only on this machine).", valueName: "url"))
        var server: String?

        @Option(help: ArgumentHelp("Your user name on the server.", valueName: "name"))
        var user: String?

        @Option(help: ArgumentHelp("This device's id on the server. Default: podfresh-<hostname>.", valueName: "id"))
        var device: String?

        @Option(help: "Which API the server speaks: gpodder (gpodder.net API v2 and its kin) or nextcloud.")
        var api: SyncAPIArgument = .gpodder

        @Option(
            name: .customLong("sync-with"),
            help: ArgumentHelp(
                "Put this device in one sync group with another device of yours (repeatable; gpodder.net API only), so the server gives each the other's subscriptions, as the website's \"synchronize devices\" does.",
                valueName: "device"))
        var syncWith: [String] = []

        @Flag(help: "Forget the set-up and its password (the subscriptions stay).")
        var remove = false

        func validate() throws {
            if remove {
                if server != nil || user != nil || device != nil || !syncWith.isEmpty {
                    throw ValidationError("--remove takes no --server, --user, --device or --sync-with.")
                }
                return
            }
            guard let server else { throw ValidationError("Please give the server's address: --server URL.") }
            _ = try Self.serverURL(server)
            guard let user, !user.isEmpty else { throw ValidationError("Please give your user name: --user NAME.") }
            if !syncWith.isEmpty && api != .gpodder {
                throw ValidationError("--sync-with is for the gpodder API; Nextcloud keeps one list per user.")
            }
            if let device {
                guard !device.isEmpty,
                    device.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) })
                else {
                    throw ValidationError(
                        "--device \"\(device)\": use letters, digits, '-', '_' and '.' only.")
                }
            }
        }

        /// The server's URL, or a usage error: http(s) with a host, https unless the host is this machine.
        static func serverURL(_ text: String) throws -> URL {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
            else {
                throw ValidationError(
                    "--server \"\(text)\" is not an http(s) URL (such as https://gpodder.example.org).")
            }
            if url.user != nil || url.password != nil {
                throw ValidationError(
                    "--server must not carry a user name or password; give --user, and the password as asked.")
            }
            if scheme == "http" && !SyncCredentials.isLoopback(host) {
                throw ValidationError(
                    "--server \"\(text)\" uses plain http, which would send the password readable on the way: use https (plain http is allowed only for this machine: 127.0.0.1, ::1, localhost)."
                )
            }
            return url
        }

        func run() async throws {
            if remove {
                try await withStore(global) { open in
                    let state = try await open.sync.syncState()
                    try await open.sync.removeSync()
                    if let path = open.sqlitePath {
                        SyncCredentials.remove(at: SyncCredentials.passwordPath(forDatabaseAt: path))
                    }
                    Console.standard.line(SyncText.removed(state))
                }
                return
            }
            guard let server, let user else { return }
            let url = try Self.serverURL(server)
            let setup = SyncSetup(
                server: url, user: user, device: device ?? SyncCredentials.defaultDevice, api: api.api)
            guard
                let password = SyncCredentials.passwordForSetUp(
                    prompt: SyncText.passwordPrompt(user: user, server: SyncServerClient.displayName(url)),
                    write: { _ = Console.standard.errors.write($0) })
            else {
                Console.standard.error(SyncText.noPassword)
                throw ExitCode.validationFailure
            }
            let status = try await withRefreshEnvironment(
                global, fetch: try FetchOptions.parse([]), output: .plain
            ) { environment -> ExitCode in
                let client = SyncServerClient(setup: setup, password: password, network: environment.network)
                do {
                    try await client.registerDevice(caption: "podfresh on \(ProcessInfo.processInfo.hostName)")
                    try await client.synchronize(with: syncWith)
                } catch let failure as SyncFailure {
                    environment.renderer.error(SyncText.failureLine(failure, settingUp: true))
                    return ExitStatus.feedsFailed
                }
                let place: String
                if let path = environment.sqlitePath {
                    let file = SyncCredentials.passwordPath(forDatabaseAt: path)
                    try SyncCredentials.write(password, to: file)
                    try await environment.syncStore.setUpSync(setup, password: nil)
                    place = "in \(file) (readable by you alone)"
                } else {
                    try await environment.syncStore.setUpSync(setup, password: password)
                    place = "in the database, for every worker"
                }
                Console.standard.line(SyncText.setUp(setup, passwordKeptIn: place))
                return .success
            }
            if status != .success { throw status }
        }
    }
}
