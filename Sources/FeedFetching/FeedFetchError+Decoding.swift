import HTTPTransport

// A subscription's last error is stored as the JSON of its `FeedFetchError` (`{"cause":{"unknownHost":{…}}}`).
// Before the transfer's facts became `TransportFailure`, each of them was a case of `FeedFetchError.Cause` itself;
// rows written then must still read back, as the same fact. `Legacy` names the old cases as they were stored.

extension FeedFetchError {
    /// Reads a stored error: today's form, or a transfer fact under the case name an older podfresh stored it with.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: StoredKey.self)
        if let legacy = try? container.decode(Legacy.self, forKey: .cause) {
            self.init(.transport(legacy.failure))
        } else {
            self.init(try container.decode(Cause.self, forKey: .cause))
        }
    }

    private enum StoredKey: String, CodingKey {
        case cause
    }

    /// The transfer's facts as `FeedFetchError.Cause` stored them before ``TransportFailure``, with their labels:
    /// these case names and labels are what old rows hold, so none of them may change.
    private enum Legacy: Decodable {
        case expandsTooMuch(ratio: Int)
        case corruptBody
        case transferLimit(
            TransferLimit, host: String, after: Duration, receivedBytes: Int64, expectedBytes: Int64?,
            minimumRate: Int?)
        case timedOut(after: Duration)
        case unknownHost(host: String)
        case nameServerGaveNoAnswer(host: String)
        case nameServerUnreachable(host: String)
        case lookupTimedOut(host: String, after: Duration)
        case lookupFailed(host: String, reason: String)
        case connectionRefused(host: String, port: Int?)
        case noAddressAnswered(host: String, port: Int?)
        case networkUnreachable(host: String)
        case noRoute(host: String)
        case connectTimedOut(host: String, after: Duration)
        case connectionReset(host: String)
        case closedEarly
        case closedBeforeEnd(host: String, receivedBytes: Int64, expectedBytes: Int64?)
        case cutShort(host: String)
        case cancelled
        case invalidHTTP
        case networkError(host: String, reason: String)
        case httpClientError(host: String, reason: String)
        case certificateForAnotherName(host: String)
        case certificateNotTrusted(host: String)
        case certificateUnverifiable(host: String)
        case handshakeFailed(host: String, port: Int?)

        /// The same fact, as it is named now.
        var failure: TransportFailure {
            switch self {
            case .expandsTooMuch(let ratio): .expandsTooMuch(ratio: ratio)
            case .corruptBody: .corruptBody
            case .transferLimit(let limit, let host, let after, let received, let expected, let rate):
                .transferLimit(
                    limit, host: host, after: after, receivedBytes: received, expectedBytes: expected,
                    minimumRate: rate)
            case .timedOut(let after): .timedOut(after: after)
            case .unknownHost(let host): .noSuchHost(host: host)
            case .nameServerGaveNoAnswer(let host): .nameServerGaveNoAnswer(host: host)
            case .nameServerUnreachable(let host): .nameServerUnreachable(host: host)
            case .lookupTimedOut(let host, let after): .lookupTimedOut(host: host, after: after)
            case .lookupFailed(let host, let reason): .lookupFailed(host: host, reason: reason)
            case .connectionRefused(let host, let port): .connectionRefused(host: host, port: port)
            case .noAddressAnswered(let host, let port): .noAddressAnswered(host: host, port: port)
            case .networkUnreachable(let host): .networkUnreachable(host: host)
            case .noRoute(let host): .noRoute(host: host)
            case .connectTimedOut(let host, let after): .connectTimedOut(host: host, after: after)
            case .connectionReset(let host): .connectionReset(host: host)
            case .closedEarly: .closedEarly
            case .closedBeforeEnd(let host, let received, let expected):
                .closedBeforeEnd(host: host, receivedBytes: received, expectedBytes: expected)
            case .cutShort(let host): .cutShort(host: host)
            case .cancelled: .cancelled
            case .invalidHTTP: .invalidHTTP
            case .networkError(let host, let reason): .networkError(host: host, reason: reason)
            case .httpClientError(let host, let reason): .httpClientError(host: host, reason: reason)
            case .certificateForAnotherName(let host): .certificateForAnotherName(host: host)
            case .certificateNotTrusted(let host): .certificateNotTrusted(host: host)
            case .certificateUnverifiable(let host): .certificateUnverifiable(host: host)
            case .handshakeFailed(let host, let port): .handshakeFailed(host: host, port: port)
            }
        }
    }
}
