import FeedModels
import FeedParsing
import Foundation
public import RefreshEngine

/// How a move a feed asked for and podfresh did not make reads.
public enum MoveText {
    /// `the feed names https://… as its new address, but it is not a readable feed (…); staying at https://…`, or
    /// `https://… is already subscribed as 4 (Title)`.
    public static func refusal(_ refusal: MoveRefusal) -> String {
        switch refusal {
        case .taken(let taken):
            return "\(taken.target.absoluteString) is already subscribed as \(taken.otherID)"
                + (taken.otherTitle.map { " (\($0))" } ?? "")
        case .unreadable(let target, let staying, let cause):
            let reason =
                switch cause {
                case .parse(let error): FeedParseErrorText.line(error)
                default: FeedFailureText.line(cause)
                }
            return
                "\(announced(target)), but it is not a readable feed (\(reason)); staying at \(staying.absoluteString)"
        case .unaskedNotModified(let target, let staying):
            return "\(announced(target)), but it answered 304 to a request without validators; staying at "
                + staying.absoluteString
        case .pointsBack(let target, let staying):
            return "\(announced(target)), and that feed names this one as its new address; staying at "
                + staying.absoluteString
        }
    }

    private static func announced(_ target: URL) -> String {
        "the feed names \(target.absoluteString) as its new address"
    }
}
