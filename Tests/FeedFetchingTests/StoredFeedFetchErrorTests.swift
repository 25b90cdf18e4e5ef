import FeedFetching
import Foundation
import HTTPTransport
import Testing

/// A subscription's last error is stored as its ``FeedFetchError``'s JSON. Rows written before the transfer's facts
/// became ``TransportFailure`` name those facts as cases of the cause itself; they read back as the same facts.
struct StoredFeedFetchErrorTests {
    private static func decode(_ json: String) throws -> FeedFetchError {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try decoder.decode(FeedFetchError.self, from: Data(json.utf8))
    }

    /// JSON the previous podfresh wrote (its `storedCause` encoder, keys sorted), and the fact it means now.
    static let written: [(json: String, means: FeedFetchError.Cause)] = [
        (#"{"cause":{"unknownHost":{"host":"gone.example"}}}"#, .transport(.noSuchHost(host: "gone.example"))),
        (
            #"{"cause":{"nameServerGaveNoAnswer":{"host":"a.example"}}}"#,
            .transport(.nameServerGaveNoAnswer(host: "a.example"))
        ),
        (
            #"{"cause":{"lookupTimedOut":{"after":[0,10000000000000000000],"host":"a.example"}}}"#,
            .transport(.lookupTimedOut(host: "a.example", after: .seconds(10)))
        ),
        (
            #"{"cause":{"connectionRefused":{"host":"127.0.0.1","port":8080}}}"#,
            .transport(.connectionRefused(host: "127.0.0.1", port: 8080))
        ),
        (
            #"{"cause":{"connectionRefused":{"host":"a.example"}}}"#,
            .transport(.connectionRefused(host: "a.example", port: nil))
        ),
        (#"{"cause":{"noRoute":{"host":"a.example"}}}"#, .transport(.noRoute(host: "a.example"))),
        (
            #"{"cause":{"connectTimedOut":{"after":[0,10000000000000000000],"host":"a.example"}}}"#,
            .transport(.connectTimedOut(host: "a.example", after: .seconds(10)))
        ),
        (#"{"cause":{"closedEarly":{}}}"#, .transport(.closedEarly)),
        (
            #"{"cause":{"closedBeforeEnd":{"expectedBytes":5000,"host":"a.example","receivedBytes":1200}}}"#,
            .transport(.closedBeforeEnd(host: "a.example", receivedBytes: 1200, expectedBytes: 5000))
        ),
        (#"{"cause":{"invalidHTTP":{}}}"#, .transport(.invalidHTTP)),
        (
            #"{"cause":{"networkError":{"host":"a.example","reason":"Broken pipe"}}}"#,
            .transport(.networkError(host: "a.example", reason: "Broken pipe"))
        ),
        (
            #"{"cause":{"certificateNotTrusted":{"host":"a.example"}}}"#,
            .transport(.certificateNotTrusted(host: "a.example"))
        ),
        (
            #"{"cause":{"handshakeFailed":{"host":"a.example","port":8443}}}"#,
            .transport(.handshakeFailed(host: "a.example", port: 8443))
        ),
        (#"{"cause":{"corruptBody":{}}}"#, .transport(.corruptBody)),
        (#"{"cause":{"expandsTooMuch":{"ratio":100}}}"#, .transport(.expandsTooMuch(ratio: 100))),
        (
            #"{"cause":{"transferLimit":{"_0":"stall","after":[1,1553255926290448384],"host":"a.example","receivedBytes":1200}}}"#,
            .transport(
                .transferLimit(
                    .stall, host: "a.example", after: .seconds(20), receivedBytes: 1200, expectedBytes: nil,
                    minimumRate: nil))
        ),
        (
            #"{"cause":{"transferLimit":{"_0":"minimum-rate","after":[1,11553255926290448384],"expectedBytes":99999,"host":"a.example","minimumRate":1000,"receivedBytes":10}}}"#,
            .transport(
                .transferLimit(
                    .minimumRate, host: "a.example", after: .seconds(30), receivedBytes: 10, expectedBytes: 99999,
                    minimumRate: 1000))
        ),
        (#"{"cause":{"timedOut":{"after":[1,11553255926290448384]}}}"#, .transport(.timedOut(after: .seconds(30)))),
        (
            #"{"cause":{"httpStatus":{"_0":503,"reasonPhrase":"Service Unavailable","retryAfter":1700000000}}}"#,
            .httpStatus(
                503, reasonPhrase: "Service Unavailable", retryAfter: Date(timeIntervalSince1970: 1_700_000_000))
        ),
        (#"{"cause":{"gone":{}}}"#, .gone),
    ]

    @Test(arguments: written)
    func aCauseThePreviousVersionStoredReadsBackAsTheSameFact(json: String, means: FeedFetchError.Cause) throws {
        #expect(try Self.decode(json).cause == means)
    }

    @Test func theKindsStoredBesideThemStayTheSame() throws {
        #expect(try Self.decode(#"{"cause":{"unknownHost":{"host":"x"}}}"#).kind == .unknownHost)
        #expect(try Self.decode(#"{"cause":{"noRoute":{"host":"x"}}}"#).kind == .unreachable)
        #expect(try Self.decode(#"{"cause":{"connectionRefused":{"host":"x"}}}"#).kind == .connectionRefused)
        #expect(try Self.decode(#"{"cause":{"certificateNotTrusted":{"host":"x"}}}"#).kind == .tls)
        #expect(try Self.decode(#"{"cause":{"corruptBody":{}}}"#).kind == .corruptBody)
        #expect(try Self.decode(#"{"cause":{"expandsTooMuch":{"ratio":9}}}"#).kind == .tooLarge)
        #expect(try Self.decode(#"{"cause":{"closedEarly":{}}}"#).kind == .transport)
        #expect(try Self.decode(#"{"cause":{"timedOut":{"after":[0,1]}}}"#).isTransient)
    }

    @Test func aCauseStoredNowReadsBackAsItself() throws {
        let error = FeedFetchError(.transport(.noSuchHost(host: "gone.example")))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        #expect(try Self.decode(String(decoding: try encoder.encode(error), as: UTF8.self)) == error)
    }
}
