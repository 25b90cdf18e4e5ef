import ArgumentParser
import ConsoleOutput
import FeedFetching
import FeedModels
import Foundation
import RefreshEngine

extension RootCommand {
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Point a subscription at a new URL by hand, or undo its last move.",
            discussion: """
                podfresh follows a feed that moves (a permanent redirect, or itunes:new-feed-url once the new address \
                proves to be a feed). `podfresh move FEED URL` sets the URL yourself; the new URL is fetched first and \
                must be a feed (--no-fetch skips that). `podfresh move FEED --undo` goes back to the URL before the \
                last move, and podfresh will not follow that move again. Episodes are kept either way.
                """)

        @OptionGroup var global: GlobalOptions
        @OptionGroup var fetch: FetchOptions

        @Argument(help: "The subscription (id, URL or part of a title).")
        var feed: String

        @Argument(help: "The new URL or path.")
        var url: String?

        @Flag(help: "Go back to the URL the subscription had before its last move.")
        var undo = false

        @Flag(help: "Do not fetch the new URL to check that it is a feed.")
        var noFetch = false

        func validate() throws {
            if undo == (url != nil) { throw ValidationError("Please give either a new URL or --undo.") }
            if let url, FeedAddress.url(from: url) == nil {
                throw ValidationError("\"\(url)\" is not a feed address: use an http, https or file URL, or a path.")
            }
        }

        func run() async throws {
            try await withStore(global) { open in
                let store = open.repositories
                let subscription: Subscription
                do {
                    subscription = try FeedSelector.resolve([feed], in: try await store.subscriptions())[0]
                } catch let error as FeedSelector.SelectionError {
                    Console.standard.error(error.message)
                    throw ExitCode.validationFailure
                }
                do {
                    if undo {
                        let moved = try await store.undoMove(id: subscription.id)
                        Console.standard.line(SubscriptionMessages.movedBack(moved, undoing: subscription.url))
                        return
                    }
                    guard let target = url.flatMap(FeedAddress.url(from:)) else { return }
                    if !noFetch, let problem = try await Self.problem(with: target, fetch: fetch) {
                        Console.standard.error(
                            SubscriptionMessages.notMoved(to: target, problem: problem, staysAt: subscription.url))
                        throw ExitStatus.feedsFailed
                    }
                    let moved = try await store.moveSubscription(id: subscription.id, to: target)
                    Console.standard.line(SubscriptionMessages.moved(moved, from: subscription.url))
                } catch let error as StoreError where error.kind != .database {
                    Console.standard.error(StoreErrorText.line(error))
                    throw ExitCode.validationFailure
                } catch let error as StoreError {
                    Console.standard.error(StoreErrorText.line(error))
                    throw ExitStatus.internalError
                }
            }
        }

        /// Why `url` is not a feed, or nil when it fetched and parsed.
        static func problem(with url: URL, fetch: FetchOptions) async throws -> (any Error)? {
            try await withFeedSource(fetch) { source in
                do {
                    let result = try await source.fetch(FeedRequest(url: url, conditional: false)) { head in
                        FeedParserConsumer(head: head)
                    }
                    if case .fetched(_, let consumer, _) = result { _ = try consumer.finish() }
                    return nil
                } catch {
                    return error
                }
            }
        }
    }
}
