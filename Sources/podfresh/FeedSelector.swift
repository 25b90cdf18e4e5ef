import FeedStorage
import Foundation

/// Finds subscriptions from what a user typed: an id, a URL (or path), or part of a title.
enum FeedSelector {
    struct SelectionError: Error, CustomStringConvertible {
        let description: String
    }

    /// Each argument must match exactly one subscription.
    ///
    /// - Throws: ``SelectionError`` naming the argument that matches nothing or several feeds.
    static func resolve(_ arguments: [String], in subscriptions: [Subscription]) throws -> [Subscription] {
        var result: [Subscription] = []
        for argument in arguments {
            let matches = match(argument, in: subscriptions)
            switch matches.count {
            case 1:
                if !result.contains(where: { $0.id == matches[0].id }) { result.append(matches[0]) }
            case 0:
                throw SelectionError(description: "no subscription matches \"\(argument)\"; `podfresh list` shows ids, URLs and titles")
            default:
                let names = matches.prefix(5).map { "\($0.id) \($0.title ?? $0.url.absoluteString)" }.joined(separator: "; ")
                throw SelectionError(description: "\"\(argument)\" matches \(matches.count) subscriptions (\(names)); give an id or URL")
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
            let byURL = subscriptions.filter { $0.url == url || $0.url.absoluteString == text }
            if !byURL.isEmpty { return byURL }
        }
        let exact = subscriptions.filter { ($0.title ?? "").caseInsensitiveCompare(text) == .orderedSame }
        if !exact.isEmpty { return exact }
        return subscriptions.filter { ($0.title ?? "").range(of: text, options: [.caseInsensitive, .diacriticInsensitive]) != nil }
    }
}
