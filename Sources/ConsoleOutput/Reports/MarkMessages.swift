public import FeedModels
import FeedParsing
import Foundation

/// What `podfresh mark played|unplayed` prints: a line per episode or feed marked, and one summing up.
public enum MarkMessages {
    /// `played     Feed: Title` (safe to print).
    public static func episode(_ episode: StoredEpisode, feedTitle: String, played: Bool) -> String {
        "\(played ? "played  " : "unplayed")   \(TerminalText.sanitize(feedTitle)): "
            + TerminalText.sanitize(episode.episode.title ?? episode.key)
    }

    /// `played     Feed: all 32 episodes` (safe to print).
    public static func feed(_ subscription: Subscription, episodes: Int, played: Bool) -> String {
        "\(played ? "played  " : "unplayed")   \(TerminalText.sanitize(subscription.title ?? subscription.url.absoluteString)): all \(episodes) episode\(episodes == 1 ? "" : "s")"
    }

    /// The last line: how many changed, how many were so already, and whether the server hears of it.
    public static func summary(changed: Int, total: Int, played: Bool, syncSetUp: Bool) -> String {
        let state = played ? "played" : "unplayed"
        var line = "marked \(changed) episode\(changed == 1 ? "" : "s") \(state)"
        if total > changed { line += " (\(total - changed) already \(state))" }
        if syncSetUp && changed > 0 {
            line += "; the next sync sends \(played ? "a play to the end" : "new") to the server"
        }
        return line
    }

    /// An argument that names neither an episode nor a feed.
    public static func noMatch(_ argument: String) -> String {
        "no episode or feed matches \"\(TerminalText.sanitize(argument))\"; `podfresh episodes --json` prints episode "
            + "ids, `podfresh list` feeds"
    }

    /// An episode id that several feeds use.
    public static func severalFeeds(_ argument: String, feedIDs: [Int64]) -> String {
        "episode id \"\(TerminalText.sanitize(argument))\" is in \(feedIDs.count) feeds (\(feedIDs.map { String($0) }.joined(separator: ", "))); "
            + "name one with --feed"
    }
}
