public import FeedModels
public import FeedParsing

/// The settings new subscriptions start with, in words (`set --new-feeds`, `status`) and in JSON (`status --json`).
public enum NewFeedSettingsText {
    /// `set --new-feeds`: "new feeds start with: downloads on, keep all, …"; for nil, the defaults.
    public static func line(_ settings: NewFeedSettings?, changed: Bool = true) -> String {
        guard let settings else {
            return changed
                ? "new feeds start with the defaults again: downloads off"
                : "new feeds start with the defaults: downloads off (set them with podfresh set --new-feeds --download on …)"
        }
        return "new feeds start with: " + words(settings)
    }

    /// `status`: one line once settings are stored, nil while new feeds start with the defaults.
    public static func statusLine(_ settings: NewFeedSettings?) -> String? {
        settings.map { "new feeds: " + words($0) }
    }

    /// "downloads on, keep 5, directory /srv/podcasts, name template (default), delete played off, filters none,
    /// extras off, tags off, downloading the episodes from its first check on and the newest 1 before" (sanitised).
    static func words(_ settings: NewFeedSettings) -> String {
        let keep = settings.keepNewest.map { "keep newest \($0)" } ?? "keep all"
        let directory = settings.directory.map(TerminalText.sanitize) ?? "(default)"
        let template = settings.fileNameTemplate.map(TerminalText.sanitize) ?? "(default)"
        let backlog: String
        switch settings.backlog {
        case nil: backlog = "every episode"
        case 0?: backlog = "the episodes that arrive after it is added"
        case let count?: backlog = "the episodes that arrive after it is added and the newest \(count) before"
        }
        return
            "downloads \(settings.downloadsEnabled ? "on" : "off"), \(keep), directory \(directory), name template \(template), delete played \(settings.deletePlayed ? "on" : "off"), filters \(DownloadFilterText.line(settings.filter)), extras \(settings.extras ? "on" : "off"), tags \(settings.tagMode.rawValue), \(settings.downloadsEnabled ? "downloading" : "once turned on, downloading") \(backlog)"
    }

    /// `status --json`'s `new_feed_settings`: `{downloads, keep, download_dir, name_template, delete_played, filters,
    /// extras, download_backlog, tags}`, or null while new feeds start with the defaults.
    public static func json(_ settings: NewFeedSettings?) -> JSONValue {
        guard let settings else { return .null }
        return .object([
            ("downloads", .bool(settings.downloadsEnabled)), ("keep", .int(settings.keepNewest)),
            ("download_dir", .string(settings.directory)), ("name_template", .string(settings.fileNameTemplate)),
            ("delete_played", .bool(settings.deletePlayed)), ("filters", DownloadFilterText.json(settings.filter)),
            ("extras", .bool(settings.extras)), ("download_backlog", .int(settings.backlog)),
            ("tags", .string(settings.tagMode.rawValue)),
        ])
    }
}
