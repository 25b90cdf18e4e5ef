public import FeedModels
import Foundation

/// What `podfresh` says when the first word it was given is not one of its commands.
///
/// A word in a command's place is never taken as a feed's name: newsboat's and gPodder's users type `update`,
/// `reload` or `version` and would read a refresh of one matching feed as "everything was updated".
public enum CommandWordText {
    /// The word is not a command; `closest` is the command (or option) to suggest, written as typed.
    public static func notACommand(_ word: String, closest: String) -> String {
        "\"\(TerminalText.sanitize(word))\" is not a podfresh command; did you mean `podfresh \(closest)`? "
            + "(`podfresh --help` lists the commands)"
    }

    /// The word matches subscriptions by id, URL or title: the command that would check them now.
    public static func matchesFeeds(_ word: String, _ matches: [Subscription]) -> String {
        if matches.count == 1, let feed = matches.first {
            let name = TerminalText.sanitize(feed.title ?? feed.url.absoluteString)
            return "to check the feed \"\(name)\" now: podfresh refresh \(shellQuoted(word))"
        }
        let lines = matches.prefix(5).map { feed in
            "  podfresh refresh \(feed.id)    # \(TerminalText.sanitize(feed.title ?? feed.url.absoluteString))"
        }
        return "\"\(TerminalText.sanitize(word))\" matches \(matches.count) feeds; to check one now:\n"
            + lines.joined(separator: "\n")
    }

    /// Options were typed before the command and the command refused the line: how it was read, options after the
    /// command (`podfresh --quiet list` as `podfresh list --quiet`).
    public static func readCommandFirst(_ words: [String]) -> String {
        "options before a command are read after it: `podfresh "
            + words.map { TerminalText.sanitize($0) }.joined(separator: " ") + "`"
    }

    /// `word` in double quotes for a POSIX shell: `"`, `$`, `` ` `` and `\` escaped.
    static func shellQuoted(_ word: String) -> String {
        var quoted = "\""
        for character in TerminalText.sanitize(word) {
            if "\"$`\\".contains(character) { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
