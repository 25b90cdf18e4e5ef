import Foundation
import HTTPTransport

// A download record's last failure is stored as the JSON of its `DownloadError` (`{"cause":{"stalled":{…}},"url":…}`).
// Before the transfer's facts became `TransportFailure`, each of them was a case of `DownloadError.Cause` itself;
// rows written then must still read back, as the same fact. `Legacy` names the old cases as they were stored.

extension DownloadError {
    /// Reads a stored error: today's form, or a transfer fact under the case name an older podfresh stored it with.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StoredKey.self)
        let url = try container.decodeIfPresent(URL.self, forKey: .url)
        if let legacy = try? container.decode(Legacy.self, forKey: .cause) {
            self.init(legacy.cause(host: url?.host ?? "the server"), url: url)
        } else {
            self.init(try container.decode(Cause.self, forKey: .cause), url: url)
        }
    }

    private enum StoredKey: String, CodingKey {
        case cause, url
    }

    /// The transfer's facts as `DownloadError.Cause` stored them before ``TransportFailure``, with their labels (and a
    /// short body, whose `cutBy` held one of them): these case names and labels are what old rows hold, so none of
    /// them may change.
    private indirect enum Legacy: Decodable {
        case shortBody(received: Int64, total: Int64, cutBy: Legacy?)
        case closedBeforeEnd(host: String, receivedBytes: Int64, expectedBytes: Int64?)
        case compressedBodyCutShort
        case undecodableBody(ratio: Int)
        case noResponse(host: String, after: Duration)
        case stalled(after: Duration, receivedBytes: Int64, expectedBytes: Int64?)
        case tooSlow(minimumRate: Int, over: Duration, receivedBytes: Int64, expectedBytes: Int64?)
        case timedOut(after: Duration, receivedBytes: Int64, expectedBytes: Int64?)
        case connectTimedOut(host: String, after: Duration)
        case lookupTimedOut(host: String, after: Duration)
        case noSuchHost(host: String)
        case unresolvable(host: String)
        case nameServerSilent(host: String)
        case lookupFailed(host: String, reason: String)
        case noAddressAnswered(host: String)
        case connectFailed(host: String, reason: String)
        case networkError(host: String, reason: String)

        /// The same fact, as it is named now; `host` is the media's, which the body's limits did not store.
        func cause(host: String) -> Cause {
            switch self {
            case .shortBody(let received, let total, let cutBy):
                .shortBody(received: received, total: total, cutBy: cutBy.map { $0.cause(host: host) })
            case .closedBeforeEnd(let host, let received, let expected):
                .transport(.closedBeforeEnd(host: host, receivedBytes: received, expectedBytes: expected))
            case .compressedBodyCutShort: .transport(.compressedBodyCutShort)
            // "Corrupt, or it inflates more than `ratio` times": which of the two was not kept.
            case .undecodableBody: .transport(.corruptBody)
            case .noResponse(let host, let after):
                .transport(limit(.firstByte, host: host, after: after, received: 0, expected: nil))
            case .stalled(let after, let received, let expected):
                .transport(limit(.stall, host: host, after: after, received: received, expected: expected))
            case .tooSlow(let rate, let over, let received, let expected):
                .transport(
                    .transferLimit(
                        .minimumRate, host: host, after: over, receivedBytes: received, expectedBytes: expected,
                        minimumRate: rate))
            case .timedOut(let after, let received, let expected):
                .transport(limit(.total, host: host, after: after, received: received, expected: expected))
            case .connectTimedOut(let host, let after): .transport(.connectTimedOut(host: host, after: after))
            case .lookupTimedOut(let host, let after): .transport(.lookupTimedOut(host: host, after: after))
            case .noSuchHost(let host): .transport(.noSuchHost(host: host))
            case .unresolvable(let host): .transport(.lookupFailed(host: host, reason: "no such host, or no DNS"))
            case .nameServerSilent(let host): .transport(.nameServerGaveNoAnswer(host: host))
            case .lookupFailed(let host, let reason): .transport(.lookupFailed(host: host, reason: reason))
            case .noAddressAnswered(let host): .transport(.noAddressAnswered(host: host, port: nil))
            case .connectFailed(let host, let reason), .networkError(let host, let reason):
                .transport(.networkError(host: host, reason: reason))
            }
        }

        private func limit(
            _ limit: TransferLimit, host: String, after: Duration, received: Int64, expected: Int64?
        ) -> TransportFailure {
            .transferLimit(
                limit, host: host, after: after, receivedBytes: received, expectedBytes: expected, minimumRate: nil)
        }
    }
}
