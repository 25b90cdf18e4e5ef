import FeedModels
import Foundation
import Testing

/// A failed connection to PostgreSQL can be part of a subscription's stored last error. Its facts took the names
/// HTTPTransport's `TransportFailure` gives the same facts; rows stored under the old names read back as the same
/// facts, and rows stored now read back as themselves.
struct ConnectionFailureStoredFormTests {
    /// JSON the previous podfresh wrote for each fact, and the fact it means now.
    static let written: [(json: String, means: ConnectionFailure)] = [
        (#"{"refused":{}}"#, .connectionRefused),
        (#"{"timedOut":{"seconds":5}}"#, .connectTimedOut(seconds: 5)),
        (#"{"timedOut":{}}"#, .connectTimedOut(seconds: nil)),
        (#"{"nameNotFound":{"code":-2}}"#, .noSuchHost(code: -2)),
        (#"{"nameNotFound":{}}"#, .noSuchHost(code: nil)),
        (#"{"system":{"errno":101}}"#, .system(errno: 101)),
        (#"{"closed":{}}"#, .closedEarly),
        (#"{"other":{"_0":"unexpected error (X.Y)"}}"#, .other("unexpected error (X.Y)")),
    ]

    @Test(arguments: written)
    func aFailureThePreviousVersionStoredReadsBackAsTheSameFact(json: String, means: ConnectionFailure) throws {
        #expect(try JSONDecoder().decode(ConnectionFailure.self, from: Data(json.utf8)) == means)
    }

    @Test(arguments: written.map(\.means))
    func aFailureStoredNowReadsBackAsItself(failure: ConnectionFailure) throws {
        let json = try JSONEncoder().encode(failure)
        #expect(try JSONDecoder().decode(ConnectionFailure.self, from: json) == failure)
    }

    @Test func aStoreErrorStoredWithAnOldNameReadsBack() throws {
        let json = #"{"reason":{"postgresUnreachable":{"cause":{"refused":{}},"host":"db","port":5432}}}"#
        let error = try JSONDecoder().decode(StoreError.self, from: Data(json.utf8))
        #expect(error.reason == .postgresUnreachable(host: "db", port: 5432, cause: .connectionRefused))
    }
}
