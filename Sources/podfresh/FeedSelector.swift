import ConsoleOutput
import FeedModels
import Foundation

/// Finds subscriptions from what a user typed: an id, a URL (or path), or part of a title.
enum FeedSelector {
    /// An argument that selects no subscription, or several: the facts; ConsoleOutput words them.
    enum SelectionError: Error {
        /// Nothing matches the argument.
        case noMatch(argument: String)
        /// The argument matches each of these subscriptions.
        case severalMatch(argument: String, matches: [Subscription])

        /// What the user reads (standard error).
        var message: String {
            switch self {
            case .noMatch(let argument): SubscriptionMessages.noMatch(argument)
            case .severalMatch(let argument, let matches): SubscriptionMessages.severalMatch(argument, matches)
            }
        }
    }

    /// Each argument must match exactly one subscription: podfresh never guesses which of several was meant.
    ///
    /// - Throws: ``SelectionError`` naming the argument that matches nothing, or listing every subscription it
    ///   matches (id, title, URL, one per line) so the user can pick an id.
    static func resolve(_ arguments: [String], in subscriptions: [Subscription]) throws -> [Subscription] {
        var result: [Subscription] = []
        for argument in arguments {
            let matches = match(argument, in: subscriptions)
            switch matches.count {
            case 1:
                if !result.contains(where: { $0.id == matches[0].id }) { result.append(matches[0]) }
            case 0:
                throw SelectionError.noMatch(argument: argument)
            default:
                throw SelectionError.severalMatch(argument: argument, matches: matches)
            }
        }
        return result
    }

    static func match(_ argument: String, in subscriptions: [Subscription]) -> [Subscription] {
        let text = argument.trimmingCharacters(in: .whitespaces)
        if let id = Int64(text) {
            return subscriptions.filter { $0.id == id }
        }
        if let url = FeedAddress.url(from: text), text.contains("/") || text.contains(":") {
            let wanted = FeedURL.normalizedString(url.absoluteString)
            let byURL = subscriptions.filter { FeedURL.normalizedString($0.url.absoluteString) == wanted }
            if !byURL.isEmpty { return byURL }
        }
        let exact = subscriptions.filter { ($0.title ?? "").caseInsensitiveCompare(text) == .orderedSame }
        if !exact.isEmpty { return exact }
        return subscriptions.filter {
            ($0.title ?? "").range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
    }
}
