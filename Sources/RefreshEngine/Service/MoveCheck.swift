import FeedFetching
import FeedModels
import FeedParsing
import Foundation

/// Whether a feed asks to move, and whether its new address leads to a feed: a permanent redirect already did (the
/// body came from there); an `itunes:new-feed-url` target is fetched and parsed first, with a second fetch of its own.
struct MoveCheck: Sendable {
    let source: any FeedSource
    let parserOptions: FeedParserOptions

    /// A permanent redirect, else `itunes:new-feed-url`, when it points somewhere new over http(s).
    func movedURL(_ subscription: Subscription, head: FeedResponseHead, feed: ParsedFeed?) -> URL? {
        if let moved = head.permanentRedirect, moved != subscription.url { return moved }
        if let newURL = feed?.newFeedURL, newURL.isHTTP,
            newURL != subscription.url, newURL != head.url
        {
            return newURL
        }
        return nil
    }

    /// The move a check asks for, once it is known to lead to a feed. A permanent redirect is already checked: the
    /// body that just parsed came from its target. An `itunes:new-feed-url` (or `<redirect><newLocation>`) target is
    /// fetched and parsed first; a target that is not a feed, or that points straight back, keeps the old URL.
    func checkedMove(
        _ subscription: Subscription, head: FeedResponseHead, feed: ParsedFeed
    ) async -> (target: URL?, refused: MoveRefusal?) {
        guard let target = movedURL(subscription, head: head, feed: feed) else { return (nil, nil) }
        if target == subscription.refusedMoveTarget { return (nil, nil) }
        if target == head.permanentRedirect { return (target, nil) }
        do {
            let result = try await source.fetch(FeedRequest(url: target, conditional: false)) { head in
                FeedParserConsumer(head: head, options: parserOptions)
            }
            guard case .fetched(_, let consumer, _) = result else {
                return (nil, .unaskedNotModified(target: target, staying: subscription.url))
            }
            let moved = try consumer.finish()
            if let back = moved.newFeedURL, back == subscription.url || back == head.url {
                return (nil, .pointsBack(target: target, staying: subscription.url))
            }
            return (target, nil)
        } catch is CancellationError {
            return (nil, nil)
        } catch {
            return (nil, .unreadable(target: target, staying: subscription.url, cause: RefreshFailure.Cause(error)))
        }
    }
}
