import ConsoleOutput
import FeedModels
import Foundation
import RefreshEngine
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed connection carries facts (refused, the timeout, getaddrinfo's code, errno); ConsoleOutput alone words
/// them. These pin the wording of every case.
struct ConnectionFailureTextTests {
    static let wordings: [(ConnectionFailure, String)] = [
        (.connectionRefused, "connection refused (nothing listens on that port)"),
        (.connectTimedOut(seconds: 10), "no answer within 10s"),
        (.connectTimedOut(seconds: nil), "the connection timed out"),
        (.noSuchHost(code: Int(EAI_NONAME)), "the host name was not found (Name or service not known)"),
        (.noSuchHost(code: nil), "the host name was not found"),
        (.system(errno: ENETUNREACH), "Network is unreachable"),
        (.closedEarly, "the server closed the connection"),
        (.other("unexpected error (X.Y)"), "unexpected error (X.Y)"),
    ]

    @Test(arguments: wordings)
    func eachCauseIsWordedOnce(failure: ConnectionFailure, words: String) {
        #expect(ConnectionFailureText.reason(failure) == words)
    }

    @Test func anUnreachableServerAsAnOlderPodfreshStoredItReadsBackAsWritten() throws {
        // The shape of a last failure stored before the cause was typed: postgres-nio's code and its words.
        let stored = """
            {"store":{"_0":{"reason":{"postgresUnreachable":{"code":"connectionError","host":"db","port":5432,\
            "reason":"unexpected error (NIOPosix.NIOConnectionError)"}}}}}
            """
        let cause = try #require(RefreshFailure.cause(stored: stored))
        guard case .store(let error) = cause else {
            Issue.record("read back as \(cause)")
            return
        }
        #expect(
            error.reason
                == .postgresUnreachable(
                    host: "db", port: 5432, cause: nil, reason: "unexpected error (NIOPosix.NIOConnectionError)"))
        #expect(
            StoreErrorText.line(error)
                == "cannot reach PostgreSQL at db:5432: unexpected error (NIOPosix.NIOConnectionError); check that the server runs and the URL"
        )
    }
}
