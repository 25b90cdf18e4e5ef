import EpisodeDownloads
import Foundation
import HTTPTransport
import Testing

/// A download record's last failure is stored as its ``DownloadError``'s JSON. Rows written before the transfer's
/// facts became ``TransportFailure`` name those facts as cases of the cause itself; they read back as the same facts.
struct StoredDownloadErrorTests {
    static let url = URL(string: "https://media.example/ep1.mp3")!

    private static func decode(_ cause: String) throws -> DownloadError {
        let json = #"{"cause":"# + cause + #","url":"https://media.example/ep1.mp3"}"#
        return try JSONDecoder().decode(DownloadError.self, from: Data(json.utf8))
    }

    /// The cause of JSON the previous podfresh wrote (its `storedCause` encoder, keys sorted), and the fact it means
    /// now.
    static let written: [(json: String, means: DownloadError.Cause)] = [
        (#"{"noSuchHost":{"host":"media.example"}}"#, .transport(.noSuchHost(host: "media.example"))),
        (
            #"{"unresolvable":{"host":"media.example"}}"#,
            .transport(.lookupFailed(host: "media.example", reason: "no such host, or no DNS"))
        ),
        (#"{"nameServerSilent":{"host":"media.example"}}"#, .transport(.nameServerGaveNoAnswer(host: "media.example"))),
        (
            #"{"lookupTimedOut":{"after":[0,10000000000000000000],"host":"media.example"}}"#,
            .transport(.lookupTimedOut(host: "media.example", after: .seconds(10)))
        ),
        (
            #"{"connectTimedOut":{"after":[0,10000000000000000000],"host":"media.example"}}"#,
            .transport(.connectTimedOut(host: "media.example", after: .seconds(10)))
        ),
        (
            #"{"noAddressAnswered":{"host":"media.example"}}"#,
            .transport(.noAddressAnswered(host: "media.example", port: nil))
        ),
        (
            #"{"connectFailed":{"host":"media.example","reason":"Connection refused"}}"#,
            .transport(.networkError(host: "media.example", reason: "Connection refused"))
        ),
        (
            #"{"closedBeforeEnd":{"expectedBytes":1000,"host":"media.example","receivedBytes":100}}"#,
            .transport(.closedBeforeEnd(host: "media.example", receivedBytes: 100, expectedBytes: 1000))
        ),
        (
            #"{"shortBody":{"cutBy":{"networkError":{"host":"media.example","reason":"Connection reset by peer"}},"received":10,"total":100}}"#,
            .shortBody(
                received: 10, total: 100,
                cutBy: .transport(.networkError(host: "media.example", reason: "Connection reset by peer")))
        ),
        (#"{"shortBody":{"received":10,"total":100}}"#, .shortBody(received: 10, total: 100, cutBy: nil)),
        (#"{"compressedBodyCutShort":{}}"#, .transport(.compressedBodyCutShort)),
        (#"{"undecodableBody":{"ratio":100}}"#, .transport(.corruptBody)),
        (
            #"{"noResponse":{"after":[1,11553255926290448384],"host":"media.example"}}"#,
            .transport(
                .transferLimit(
                    .firstByte, host: "media.example", after: .seconds(30), receivedBytes: 0, expectedBytes: nil,
                    minimumRate: nil))
        ),
        (
            #"{"stalled":{"after":[1,1553255926290448384],"expectedBytes":100,"receivedBytes":5}}"#,
            .transport(
                .transferLimit(
                    .stall, host: "media.example", after: .seconds(20), receivedBytes: 5, expectedBytes: 100,
                    minimumRate: nil))
        ),
        (
            #"{"tooSlow":{"minimumRate":1000,"over":[1,11553255926290448384],"receivedBytes":5}}"#,
            .transport(
                .transferLimit(
                    .minimumRate, host: "media.example", after: .seconds(30), receivedBytes: 5, expectedBytes: nil,
                    minimumRate: 1000))
        ),
        (
            #"{"timedOut":{"after":[3,4659767778871345152],"expectedBytes":100,"receivedBytes":5}}"#,
            .transport(
                .transferLimit(
                    .total, host: "media.example", after: .seconds(60), receivedBytes: 5, expectedBytes: 100,
                    minimumRate: nil))
        ),
        (#"{"httpStatus":{"_0":404,"reasonPhrase":"Not Found"}}"#, .httpStatus(404, reasonPhrase: "Not Found")),
    ]

    @Test(arguments: written)
    func aCauseThePreviousVersionStoredReadsBackAsTheSameFact(json: String, means: DownloadError.Cause) throws {
        let error = try Self.decode(json)
        #expect(error.cause == means)
        #expect(error.url == Self.url)
    }

    @Test func theKindsTheyHadStayTheSame() throws {
        #expect(try Self.decode(#"{"stalled":{"after":[0,1],"receivedBytes":5}}"#).kind == .stalled)
        #expect(try Self.decode(#"{"tooSlow":{"minimumRate":1,"over":[0,1],"receivedBytes":5}}"#).kind == .tooSlow)
        #expect(try Self.decode(#"{"noResponse":{"after":[0,1],"host":"h"}}"#).kind == .noResponse)
        #expect(try Self.decode(#"{"timedOut":{"after":[0,1],"receivedBytes":5}}"#).kind == .timeout)
        #expect(try Self.decode(#"{"closedBeforeEnd":{"host":"h","receivedBytes":1}}"#).kind == .shortBody)
        #expect(try Self.decode(#"{"compressedBodyCutShort":{}}"#).kind == .shortBody)
        #expect(try Self.decode(#"{"undecodableBody":{"ratio":1}}"#).kind == .unsupportedEncoding)
        #expect(try Self.decode(#"{"connectFailed":{"host":"h","reason":"r"}}"#).kind == .transport)
        #expect(try Self.decode(#"{"noSuchHost":{"host":"h"}}"#).kind == .transport)
    }

    @Test func aCauseStoredNowReadsBackAsItself() throws {
        let error = DownloadError(
            .shortBody(received: 1, total: 2, cutBy: .transport(.connectionReset(host: "media.example"))), url: Self.url
        )
        #expect(try JSONDecoder().decode(DownloadError.self, from: try JSONEncoder().encode(error)) == error)
    }
}
