import EpisodeDownloads
import FeedFetching
import FeedModels
import FeedParsing
import Foundation
import Measures
public import RefreshEngine

/// How errors read: each typed error's message, with what to do about it in the words of the options a user types.
/// Nothing prints an error's raw `description` dump.
public enum ErrorText {
    /// One line for an error that ended a command or a feed: a fetch's or a parse's message with its remedy, a
    /// store's with its remedy, a `LocalizedError`'s description; anything else is named by its type only (its raw
    /// dump means nothing to a user).
    public static func line(_ error: any Error) -> String {
        switch error {
        case let error as FeedFetchError:
            guard let limit = error.maxBodyBytes else { return FetchFailureText.line(error) }
            return FetchFailureText.line(error) + " (" + remedy(.raiseFeedSizeLimit(bytes: limit)) + ")"
        case let error as FeedParseError:
            return error.isSubscriptionList
                ? FeedParseErrorText.line(error) + " (" + remedy(.importSubscriptionList) + ")"
                : FeedParseErrorText.line(error)
        case let error as StoreError:
            return StoreErrorText.line(error)
        case let error as DownloadError:
            return DownloadFailureText.line(error)
        case let error as RefreshFailure:
            return FeedFailureText.lineWithRemedy(error)
        default:
            return ErrorWords.describe(error)
        }
    }

    /// A failure's remedy in the options' words.
    public static func remedy(_ remedy: RefreshFailure.Remedy) -> String {
        switch remedy {
        case .raiseFeedSizeLimit: "--max-feed-size"
        case .importSubscriptionList: "use `podfresh import`"
        }
    }
}
