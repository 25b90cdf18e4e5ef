public import FeedModels
public import FeedParsing
public import Foundation
public import RefreshEngine

/// The one-line answers of the commands that change subscriptions: `add`, `remove`, `move` and `import`.
///
/// Each function returns the line without a newline; lines for standard error leave out the "podfresh: " that
/// ``Console/error(_:)`` (or ``ConsoleRenderer/error(_:)``) adds.
public enum SubscriptionMessages {
    // MARK: - add

    /// `add --no-fetch`: the subscription was stored, with its new id and the URL as given.
    public static func added(id: Int64, url: URL) -> String {
        "added \(id) \(url.absoluteString)"
    }

    /// `add` of a web page that links one feed: it subscribes to that feed instead, and says so.
    public static func subscribingToLinkedFeed(page: URL, feed: FeedDiscovery.LinkedFeed) -> String {
        "\(page.absoluteString) is a web page; subscribing to the feed it links: \(feed.url.absoluteString)"
            + (feed.title.map { " (" + TerminalText.sanitize($0) + ")" } ?? "")
    }

    /// `add` of a web page that links several feeds (standard error, a line each): none is subscribed; each is
    /// listed as the command that adds it, with its title, to pick.
    public static func pageLinksSeveralFeeds(page: URL, feeds: [FeedDiscovery.LinkedFeed]) -> [String] {
        [
            "not subscribed to \(page.absoluteString): it is a web page that links \(feeds.count) feeds; add the one you want:"
        ]
            + feeds.map { feed in
                "  podfresh add " + feed.url.absoluteString
                    + (feed.title.map { "    # " + TerminalText.sanitize($0) } ?? "")
            }
    }

    /// `add` (standard error): the URL is subscribed already.
    public static func alreadySubscribed(_ url: URL) -> String {
        "\(url.absoluteString) is already subscribed"
    }

    /// `add` (standard error): why the first check of a new feed means it is not kept, or nil when it is kept (the
    /// check updated it, found it unchanged, answered from the store, or it was removed meanwhile).
    public static func notSubscribed(_ outcome: RefreshOutcome) -> String? {
        let reason: String
        switch outcome.result {
        case .failed(let failure): reason = "it could not be read as a feed (\(FeedFailureText.line(failure)))"
        case .gone(let error): reason = "the server says it is gone for good (\(FetchFailureText.line(error)))"
        case .cancelled: reason = "it was not checked before podfresh was stopped"
        case .updated, .notModified, .offline, .removed, .dropped: return nil
        }
        return "not subscribed to \(outcome.feed.url.absoluteString): \(reason)"
    }

    // MARK: - remove

    /// `remove`: the subscription is gone, named by its title (safe to print) or else its URL.
    public static func removed(_ subscription: Subscription) -> String {
        "removed \(subscription.id) \(TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString))"
    }

    // MARK: - move

    /// `move URL`: the subscription now fetches `moved.url`, and the move can be undone.
    public static func moved(_ moved: Subscription, from old: URL) -> String {
        "moved \(moved.id) from \(old.absoluteString) to \(moved.url.absoluteString) (undo with `podfresh move \(moved.id) --undo`)"
    }

    /// `move --undo`: the subscription is back at `moved.url`, and `undone` will not be followed again.
    public static func movedBack(_ moved: Subscription, undoing undone: URL) -> String {
        "moved \(moved.id) back to \(moved.url.absoluteString); \(undone.absoluteString) will not be followed again"
    }

    /// `move URL` (standard error): the new URL is not a feed, so the subscription stays where it is.
    public static func notMoved(to target: URL, problem: any Error, staysAt current: URL) -> String {
        "not moved: \(target.absoluteString) could not be read as a feed (\(ErrorText.line(problem))); the subscription "
            + "stays at \(current.absoluteString) (--no-fetch moves it anyway)"
    }

    /// A feed argument that matches no subscription.
    public static func noMatch(_ argument: String) -> String {
        "no subscription matches \"\(argument)\"; `podfresh list` shows ids, URLs and titles"
    }

    /// A feed argument that matches several subscriptions: each on a line (id, title, URL) so the user can pick an id.
    public static func severalMatch(_ argument: String, _ matches: [Subscription]) -> String {
        let lines = matches.map { subscription in
            "  \(subscription.id)  \(TerminalText.sanitize(subscription.title ?? "(untitled)"))  "
                + subscription.url.absoluteString
        }
        return "\"\(argument)\" matches \(matches.count) subscriptions; give one of these ids (or a URL):\n"
            + lines.joined(separator: "\n")
    }

    /// `download` without feeds named, when no subscription has its downloads on.
    public static let noDownloadsOn =
        "no feed has downloads on: turn them on with `podfresh set FEED --download on`, or name feeds: "
        + "`podfresh download FEED`"

    // MARK: - set

    /// `set`: a subscription's download settings as stored now, named by its id and title (safe to print):
    /// "set 3 Show: downloads on, keep newest 5, directory (default), name template (default)". Without options
    /// `set` prints the same line with "settings of" instead of "set".
    public static func downloadSettings(_ subscription: Subscription, changed: Bool = true) -> String {
        let name = TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString)
        let keep = subscription.keepNewest.map { "keep newest \($0)" } ?? "keep all"
        let directory = subscription.downloadDirectory.map(TerminalText.sanitize) ?? "(default)"
        let template = subscription.fileNameTemplate.map(TerminalText.sanitize) ?? "(default)"
        return
            "\(changed ? "set" : "settings of") \(subscription.id) \(name): downloads \(subscription.downloadsEnabled ? "on" : "off"), \(keep), directory \(directory), name template \(template), delete played \(subscription.deletePlayed ? "on" : "off"), filters \(DownloadFilterText.line(subscription.downloadFilter)), extras \(subscription.extras ? "on" : "off"), tags \(subscription.tagMode.rawValue), downloading \(SubscriptionList.downloadsFrom(of: subscription))"
    }

    // MARK: - import

    /// `import`: how many feeds were added, and how many were skipped as duplicates or had no usable feed URL.
    public static func imported(added: Int, duplicates: Int, invalid: Int) -> String {
        var line = "imported \(added) feed\(added == 1 ? "" : "s")"
        if duplicates > 0 { line += ", skipped \(duplicates) already subscribed" }
        if invalid > 0 { line += ", ignored \(invalid) without a usable http(s) feed URL" }
        return line
    }

    /// `import` (standard error): the file (`-` is standard input) could not be read.
    public static func cannotRead(_ file: String, _ error: any Error) -> String {
        "cannot read \(file == "-" ? "standard input" : file): \(error.localizedDescription)"
    }

    /// `import` (standard error): the file is not OPML.
    public static func notOPML(_ file: String, _ error: any Error) -> String {
        "\(file) is not an OPML subscription list: \(ErrorText.line(error))"
    }
}
