import ArgumentParser
import ConsoleOutput
import EpisodeDownloads
import FeedModels
import Foundation

extension RootCommand {
    struct SetSettings: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract:
                "Set a feed's download settings (or, with --new-feeds, those every new subscription starts with): downloads on or off, how many files to keep, where, named how, whether played episodes' files go, which episodes (filters), and the files beside them.",
            discussion: """
                Only the options given change; without any, the feed's settings are printed. Turning downloads on \
                downloads the episodes that arrive from then on, and the newest one already there (`--backlog N` \
                for the newest N, `--backlog all` for every one; `podfresh download FEED --latest N` fetches older \
                ones once). `--keep all` keeps every \
                file; `--dir ""` and `--name-template ""` go back to the defaults. A template names the file from \
                {feed}, {title}, {date}, {ext}, {season}, {episode}, {key} and {guid}, e.g. "{feed}/{date} {title}.{ext}".

                Filters decide which episodes `download` and `refresh --download` fetch, and which files `--keep` \
                counts and `--delete-played` deletes: an episode is downloaded when its title (with `--match \
                description`, also its description) matches one `--include` pattern (or none is set), matches no \
                `--exclude` pattern, and is not shorter than `--min-duration`. Given again, `--include` and \
                `--exclude` replace the feed's patterns; `--clear-filters` removes them all. A file downloaded before \
                a filter left its episode out is kept, and neither counted nor deleted.

                `--tags on` writes the episode's tags into each file downloaded from then on, after it is verified: \
                ID3v2.4 in an MP3 (an ID3v1 tag at its end is left alone), `ilst` in an MP4/M4A; the audio stays \
                byte for byte. `--tags merge` keeps the host's other tags. Other formats are left as downloaded. A \
                file whose tags cannot be written stays as downloaded, and the episode downloaded.

                With --new-feeds instead of a feed, the options set what every subscription made from then on \
                starts with, whether it comes from `add`, `import` or a sync with your phone (existing feeds keep \
                theirs): `podfresh set --new-feeds --download on` downloads each new feed's newest episode and \
                those that arrive after. Without options it prints them; `--reset` forgets them. `status` shows them.
                """)

        /// The placeholders a file-name template may use.
        static let templatePlaceholders = Set(FileNaming.placeholders)

        enum Switch: String, ExpressibleByArgument, CaseIterable {
            case on, off
        }

        /// `--match`: what the filters' patterns are matched against (``DownloadFilter/Field``).
        enum MatchField: String, ExpressibleByArgument, CaseIterable {
            case title, description
        }

        @OptionGroup var global: GlobalOptions

        @Argument(help: "The subscription (id, URL or part of a title); not with --new-feeds.")
        var feed: String?

        @Flag(
            help:
                "Set what every subscription made from now on starts with (by add, import or a sync), instead of one feed's settings."
        )
        var newFeeds = false

        @Flag(help: "With --new-feeds: forget them; new subscriptions start with the defaults (downloads off) again.")
        var reset = false

        @Option(help: "Download this feed's episodes.")
        var download: Switch?

        @Option(help: ArgumentHelp("Keep only the newest N downloaded files, or all.", valueName: "N|all"))
        var keep: String?

        @Option(
            help: ArgumentHelp(
                "Besides the episodes that arrive once downloads are on, download the newest N from before (default 1, the newest when they were turned on), or all of them.",
                valueName: "N|all"))
        var backlog: String?

        @Option(help: ArgumentHelp("Where this feed's files go (\"\" for the default).", valueName: "dir"))
        var dir: String?

        @Option(help: ArgumentHelp("How this feed's files are named (\"\" for the default).", valueName: "template"))
        var nameTemplate: String?

        @Option(
            help: ArgumentHelp(
                "Delete a downloaded file once its episode was played to the end on any device (synced with `podfresh sync`; only files podfresh wrote).",
                valueName: "on|off"))
        var deletePlayed: Switch?

        @Option(
            name: .customLong("include"),
            help: ArgumentHelp(
                "Download only episodes whose title matches one of these regular expressions (case-insensitive; repeat it for several; \"\" for none). Replaces the feed's include patterns.",
                valueName: "regex"))
        var includes: [String] = []

        @Option(
            name: .customLong("exclude"),
            help: ArgumentHelp(
                "Never download episodes whose title matches one of these regular expressions (case-insensitive; repeat it for several; \"\" for none). Replaces the feed's exclude patterns.",
                valueName: "regex"))
        var excludes: [String] = []

        @Option(help: "What --include and --exclude are matched against: the title, or the title and the description.")
        var match: MatchField?

        @Option(
            help: ArgumentHelp(
                "Download only episodes at least this long (e.g. 10m; \"off\" for any length). An episode whose feed gives no duration is downloaded.",
                valueName: "duration"))
        var minDuration: String?

        @Flag(help: "Remove every download filter (--include, --exclude, --match, --min-duration) first.")
        var clearFilters = false

        @Option(
            help: ArgumentHelp(
                "Save each downloaded episode's transcripts, chapters and artwork beside its media file.",
                valueName: "on|off"))
        var extras: Switch?

        @Option(
            help: ArgumentHelp(
                "Write the episode's tags (title, podcast, author, numbers, date, notes, cover, link, guid) into each MP3 or M4A once it is downloaded and verified: on replaces the host's tags, merge keeps the host's other tags.",
                valueName: "on|off|merge"))
        var tags: TagModeArgument?

        /// `--tags`.
        enum TagModeArgument: String, ExpressibleByArgument, CaseIterable {
            case on, off, merge
        }

        func validate() throws {
            switch (feed, newFeeds) {
            case (nil, false):
                throw ValidationError("Please name a feed (id, URL or part of a title), or give --new-feeds.")
            case (let feed?, true):
                throw ValidationError(
                    "--new-feeds sets what every new subscription starts with, for no one feed: leave out \"\(feed)\".")
            default: break
            }
            if reset && !newFeeds {
                throw ValidationError("--reset goes with --new-feeds; to change one feed, give the options to change.")
            }
            if reset && !settings.isEmpty {
                throw ValidationError("--reset forgets the settings for new feeds; give other options without it.")
            }
            for (option, patterns) in [("--include", includes), ("--exclude", excludes)] {
                for pattern in patterns where !pattern.isEmpty {
                    if let problem = DownloadFilter.problem(in: pattern) {
                        throw ValidationError("\(option) \"\(pattern)\" \(problem).")
                    }
                }
            }
            if let minDuration, Self.minimumDurationChange(minDuration) == nil {
                throw ValidationError(
                    "--min-duration takes a duration such as 10m, 90s or 1h, or \"off\", not \"\(minDuration)\".")
            }
            if let backlog, Self.backlogChange(backlog) == nil {
                throw ValidationError(
                    "--backlog takes a number of episodes (0 or more) or \"all\", not \"\(backlog)\".")
            }
            if let keep, Self.keepChange(keep) == nil {
                throw ValidationError("--keep takes a number of files (1 or more) or \"all\", not \"\(keep)\".")
            }
            if let dir, dir.contains("\0") {
                throw ValidationError("--dir \"\(dir)\" is not a directory path.")
            }
            if let nameTemplate, let problem = Self.templateProblem(nameTemplate) {
                throw ValidationError("--name-template \"\(nameTemplate)\" \(problem).")
            }
        }

        /// `--keep N|all` as a change: nil when the value is neither.
        static func keepChange(_ text: String) -> SettingChange<Int>? {
            if text.lowercased() == "all" { return .reset }
            guard let count = Int(text), count >= 1 else { return nil }
            return .set(count)
        }

        /// `--backlog N|all` as a change: nil when the value is neither.
        static func backlogChange(_ text: String) -> DownloadBacklog? {
            if text.lowercased() == "all" { return .all }
            guard let count = Int(text), count >= 0 else { return nil }
            return .newest(count)
        }

        /// `--min-duration DURATION|off` as a change, in whole seconds: nil when it is neither.
        static func minimumDurationChange(_ text: String) -> SettingChange<Int>? {
            let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed == "off" || trimmed == "none" { return .reset }
            guard let duration = DurationArgument(argument: trimmed), duration.seconds.isFinite,
                duration.seconds < 1e9
            else { return nil }
            let seconds = Int(duration.seconds.rounded())
            return seconds == 0 ? .reset : .set(seconds)
        }

        /// Patterns as given: nil when the option was not given; an empty string clears them.
        static func patterns(_ given: [String]) -> [String]? {
            given.isEmpty ? nil : given.filter { !$0.isEmpty }
        }

        /// Why a template is unusable, or nil when it may be stored (empty means the default).
        static func templateProblem(_ template: String) -> String? {
            if template.isEmpty { return nil }
            if template.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return "contains a control character"
            }
            var rest = Substring(template)
            while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
                guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                    return "has an unmatched brace"
                }
                let name = String(rest[rest.index(after: open)..<close])
                guard templatePlaceholders.contains(name) else {
                    return
                        "uses {\(name)}; a template may use {\(templatePlaceholders.sorted().joined(separator: "}, {"))}"
                }
                rest = rest[rest.index(after: close)...]
            }
            return nil
        }

        /// The settings the options ask for.
        var settings: DownloadSettings {
            var settings = DownloadSettings(
                enabled: download.map { $0 == .on },
                keepNewest: keep.flatMap(Self.keepChange),
                directory: dir.map { $0.isEmpty ? .reset : .set(Self.absolute($0)) },
                fileNameTemplate: nameTemplate.map { $0.isEmpty ? .reset : .set($0) },
                deletePlayed: deletePlayed.map { $0 == .on })
            settings.include = Self.patterns(includes)
            settings.exclude = Self.patterns(excludes)
            settings.match = match.map { $0 == .title ? .title : .description }
            settings.minimumDuration = minDuration.flatMap(Self.minimumDurationChange)
            settings.clearFilters = clearFilters
            settings.extras = extras.map { $0 == .on }
            settings.backlog = backlog.flatMap(Self.backlogChange)
            settings.tags = tags.flatMap { TagMode(rawValue: $0.rawValue) }
            return settings
        }

        /// A directory as stored: absolute (relative to the current directory), so that it means the same to every
        /// later command wherever it runs.
        static func absolute(_ path: String) -> String {
            let expanded = (path as NSString).expandingTildeInPath
            return URL(fileURLWithPath: expanded).standardizedFileURL.path
        }

        func run() async throws {
            guard let feed else { return try await setNewFeeds() }
            try await withStore(global) { open in
                let store = open.repositories
                let subscription: Subscription
                do {
                    subscription = try FeedSelector.resolve([feed], in: try await store.subscriptions())[0]
                } catch let error as FeedSelector.SelectionError {
                    Console.standard.error(error.message)
                    throw ExitCode.validationFailure
                }
                let settings = self.settings
                if settings.isEmpty {
                    Console.standard.line(SubscriptionMessages.downloadSettings(subscription, changed: false))
                    return
                }
                let updated = try await store.updateDownloadSettings(id: subscription.id, settings)
                Console.standard.line(SubscriptionMessages.downloadSettings(updated))
            }
        }

        /// `set --new-feeds`: changes, forgets or prints what new subscriptions start with.
        private func setNewFeeds() async throws {
            try await withStore(global) { open in
                let store = open.repositories
                let line: String
                if reset {
                    try await store.resetNewFeedSettings()
                    line = NewFeedSettingsText.line(nil)
                } else if settings.isEmpty {
                    line = NewFeedSettingsText.line(try await store.newFeedSettings(), changed: false)
                } else {
                    let stored = try await store.updateNewFeedSettings(settings)
                    line = NewFeedSettingsText.line(stored.isDefault ? nil : stored)
                }
                // On a terminal the line wraps at a word, under itself; a pipe or a file gets it whole.
                let width = TerminalWidth.ofStandardOutput(environment: ProcessInfo.processInfo.environment)
                Console.standard.lines(width.map { TerminalWidth.wrap(line, to: $0, indent: 2) } ?? [line])
            }
        }
    }
}
