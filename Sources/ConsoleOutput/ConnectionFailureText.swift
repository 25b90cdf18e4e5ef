public import FeedModels
import Measures

/// How a failed connection to a server reads: the one place a ``ConnectionFailure`` is worded.
public enum ConnectionFailureText {
    /// Why no connection was made: `connection refused`, `no answer within 10s`, `the host name was not found`.
    public static func reason(_ failure: ConnectionFailure) -> String {
        switch failure {
        case .connectionRefused: "connection refused (nothing listens on that port)"
        case .connectTimedOut(let seconds?): "no answer within \(Measure.duration(seconds: seconds))"
        case .connectTimedOut(nil): "the connection timed out"
        case .noSuchHost(let code?): "the host name was not found (\(ErrorWords.nameLookup(code: Int32(code))))"
        case .noSuchHost(nil): "the host name was not found"
        case .system(let code): ErrorWords.system(errno: code)
        case .closedEarly: "the server closed the connection"
        case .other(let words): words
        }
    }
}
