public import FeedModels
public import Foundation
public import HTTPTransport
import Measures

#if canImport(Glibc)
import Glibc
#endif

/// What the server says changed in the subscriptions since a cursor.
public struct SubscriptionChanges: Sendable, Hashable {
    /// Feeds subscribed on another device since the cursor.
    public var add: [String]
    /// Feeds unsubscribed since the cursor.
    public var remove: [String]
    /// The cursor to ask from next time.
    public var timestamp: Int64

    public init(add: [String], remove: [String], timestamp: Int64) {
        self.add = add
        self.remove = remove
        self.timestamp = timestamp
    }
}

/// What the server says to a push of subscription changes.
public struct PushAnswer: Sendable, Hashable {
    /// The server's time of the change; nil when it said none (Nextcloud's app answers with nothing).
    public var timestamp: Int64?
    /// URLs the server rewrote (`update_urls`): each as sent and as the server keeps it (empty: refused).
    public var updateURLs: [(sent: String, kept: String)]

    public init(timestamp: Int64?, updateURLs: [(sent: String, kept: String)]) {
        self.timestamp = timestamp
        self.updateURLs = updateURLs
    }

    public static func == (lhs: PushAnswer, rhs: PushAnswer) -> Bool {
        lhs.timestamp == rhs.timestamp
            && lhs.updateURLs.map { [$0.sent, $0.kept] } == rhs.updateURLs.map { [$0.sent, $0.kept] }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(timestamp)
        for pair in updateURLs { hasher.combine(pair.sent + "\u{0}" + pair.kept) }
    }
}

/// A client of one gPodder-API server, either flavour (``SyncAPI``), over the process's one network layer.
///
/// Every request carries HTTP basic authentication, so it goes only to the server's own address: a redirect is a
/// failure that names its target, never followed with the password. Every failure is a ``SyncFailure`` naming the
/// server; the password appears in none.
public struct SyncServerClient: Sendable {
    public let setup: SyncSetup
    private let password: String
    private let network: HTTPNetwork
    private let timeout: Duration
    private let maxResponseBytes: Int

    /// A client for `setup`; each request must be answered within `timeout`, in at most `maxResponseBytes`.
    public init(
        setup: SyncSetup, password: String, network: HTTPNetwork, timeout: Duration = .seconds(30),
        maxResponseBytes: Int = 64 << 20
    ) {
        self.setup = setup
        self.password = password
        self.network = network
        self.timeout = timeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// The server as messages name it: its URL without user information.
    public var serverName: String { Self.displayName(setup.server) }

    /// The server's URL as messages show it: scheme, host, port and path, never user information.
    public static func displayName(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        return components.string ?? url.absoluteString
    }

    // MARK: - The API

    /// Registers this device (gpodder.net: type `server`), which also checks the user name and password. Nextcloud's
    /// app has no devices: the subscriptions are asked for instead, to check the login.
    /// - Throws: ``SyncFailure``.
    public func registerDevice(caption: String) async throws(SyncFailure) {
        switch setup.api {
        case .gpodder:
            let body = try encode(["caption": caption, "type": "server"], step: .register)
            _ = try await send(
                .post, path: "api/2/devices/\(segment(setup.user))/\(segment(setup.device)).json",
                query: nil, body: body, step: .register)
        case .nextcloud:
            _ = try await pullSubscriptions(since: 0, step: .register)
        }
    }

    /// Puts this device in one sync group with `devices` (gpodder.net's "synchronize devices"): the server then gives
    /// each of them the others' subscriptions. Nextcloud's app has one list per user and no groups: nothing to do.
    /// - Throws: ``SyncFailure``.
    public func synchronize(with devices: [String]) async throws(SyncFailure) {
        guard setup.api == .gpodder, !devices.isEmpty else { return }
        let body = try encode(RawSyncGroups(synchronize: [[setup.device] + devices]), step: .register)
        _ = try await send(
            .post, path: "api/2/sync-devices/\(segment(setup.user)).json", query: nil, body: body, step: .register)
    }

    /// The subscription changes since `since` (0: every subscription).
    /// - Throws: ``SyncFailure``.
    public func pullSubscriptions(since: Int64) async throws(SyncFailure) -> SubscriptionChanges {
        try await pullSubscriptions(since: since, step: .pull)
    }

    private func pullSubscriptions(
        since: Int64, step: SyncFailure.Step
    ) async throws(SyncFailure)
        -> SubscriptionChanges
    {
        let bytes = try await send(
            .get, path: subscriptionsPath, query: "since=\(max(0, since))", body: nil, step: step)
        let raw: RawChanges = try decode(bytes, step: step)
        guard let timestamp = raw.timestamp else {
            throw failure(step, .malformed, detail: "no \"timestamp\" in the answer")
        }
        return SubscriptionChanges(add: raw.add ?? [], remove: raw.remove ?? [], timestamp: timestamp)
    }

    /// Pushes subscriptions added and removed on this device.
    /// - Throws: ``SyncFailure``.
    public func pushSubscriptions(add: [String], remove: [String]) async throws(SyncFailure) -> PushAnswer {
        let body = try encode(RawPush(add: add, remove: remove), step: .push)
        let path: String
        switch setup.api {
        case .gpodder: path = subscriptionsPath
        case .nextcloud: path = "index.php/apps/gpoddersync/subscription_change/create"
        }
        let bytes = try await send(.post, path: path, query: nil, body: body, step: .push)
        // Nextcloud's app may answer with nothing at all.
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }) {
            return PushAnswer(timestamp: nil, updateURLs: [])
        }
        let raw: RawPushAnswer = try decode(bytes, step: .push)
        let pairs = (raw.updateURLs ?? []).compactMap { pair -> (sent: String, kept: String)? in
            guard pair.count == 2 else { return nil }
            return (pair[0], pair[1])
        }
        return PushAnswer(timestamp: raw.timestamp, updateURLs: pairs)
    }

    private var subscriptionsPath: String {
        switch setup.api {
        case .gpodder: "api/2/subscriptions/\(segment(setup.user))/\(segment(setup.device)).json"
        case .nextcloud: "index.php/apps/gpoddersync/subscriptions"
        }
    }

    // MARK: - HTTP

    func send(
        _ method: HTTPNetwork.Request.Method, path: String, query: String?, body: Data?, step: SyncFailure.Step
    ) async throws(SyncFailure) -> [UInt8] {
        var base = setup.server.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        guard let url = URL(string: base + path + (query.map { "?" + $0 } ?? "")) else {
            throw failure(step, .unreachable, detail: "not a URL: \(path)")
        }
        var request = HTTPNetwork.Request(url: url, method: method)
        request.addHeader("Accept", "application/json")
        request.addHeader("User-Agent", "podfresh")
        let credentials = Data("\(setup.user):\(password)".utf8).base64EncodedString()
        request.addHeader("Authorization", "Basic " + credentials)
        if let body {
            request.addHeader("Content-Type", "application/json")
            request.body = Array(body)
        }
        let profile = HTTPNetwork.Profile(
            decompressionRatioLimit: 100, connectTimeout: min(timeout, .seconds(10)), readTimeout: timeout)
        let status: Int
        let location: String?
        let bytes: [UInt8]
        do {
            let exchange = try await network.execute(
                request, profile: profile, maxRedirects: 0, deadline: .now + timeout)
            status = exchange.response.status
            location = exchange.response.headers.first(name: "Location")
            bytes = try await exchange.response.body.collect(upTo: maxResponseBytes)
        } catch is HTTPNetwork.BodyTooLarge {
            throw failure(step, .malformed, detail: "an answer larger than \(maxResponseBytes) bytes")
        } catch is CancellationError {
            throw failure(step, .unreachable, detail: "cancelled")
        } catch {
            let transport = TransportFailure(error, url: url, profile: profile, timeout: timeout)
            switch transport {
            case .timedOut, .transferLimit, .lookupTimedOut:
                throw failure(step, .timedOut)
            case .connectTimedOut:
                throw failure(step, .timedOut, detail: "connecting")
            case .cancelled:
                throw failure(step, .unreachable, detail: "cancelled")
            default:
                throw failure(step, .unreachable, detail: Self.reason(transport))
            }
        }
        switch status {
        case 200..<300: return bytes
        case 301, 302, 303, 307, 308:
            throw failure(step, .redirected, status: status, detail: location.map(Self.withoutUserInformation))
        case 401: throw failure(step, .unauthorized, status: status)
        case 403: throw failure(step, .forbidden, status: status)
        case 404: throw failure(step, .notFound, status: status)
        default: throw failure(step, .httpStatus, status: status)
        }
    }

    /// A connection's failure in a few words (`Connection refused`, no such host).
    static func reason(_ failure: TransportFailure) -> String {
        switch failure {
        case .noSuchHost(let host): "no such host \(host)"
        case .nameServerGaveNoAnswer(let host), .nameServerUnreachable(let host): "no name server answered for \(host)"
        case .lookupFailed(let host, let reason): "looking up \(host) failed: \(reason)"
        case .connectionRefused: String(cString: strerror(ECONNREFUSED))
        case .noAddressAnswered: "no address answered"
        case .networkUnreachable: String(cString: strerror(ENETUNREACH))
        case .noRoute: String(cString: strerror(EHOSTUNREACH))
        case .connectionReset: String(cString: strerror(ECONNRESET))
        case .closedEarly, .closedBeforeEnd, .cutShort: "the connection closed before the answer ended"
        case .certificateForAnotherName, .certificateNotTrusted, .certificateUnverifiable, .handshakeFailed:
            "the TLS handshake failed (\(failure))"
        case .invalidHTTP: "the answer was not HTTP"
        case .networkError(_, let reason), .httpClientError(_, let reason): reason
        default: "\(failure)"
        }
    }

    func failure(
        _ step: SyncFailure.Step, _ kind: SyncFailure.Kind, status: Int? = nil, detail: String? = nil
    ) -> SyncFailure {
        // A message never carries the password, even where a library's text would quote the request.
        let detail = detail.map { password.isEmpty ? $0 : $0.replacingOccurrences(of: password, with: "***") }
        return SyncFailure(step: step, kind: kind, server: serverName, status: status, detail: detail)
    }

    func encode<T: Encodable>(_ value: T, step: SyncFailure.Step) throws(SyncFailure) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw failure(step, .malformed, detail: "\(error)")
        }
    }

    func decode<T: Decodable>(_ bytes: [UInt8], step: SyncFailure.Step) throws(SyncFailure) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw failure(step, .malformed, detail: Self.describe(error))
        } catch {
            throw failure(step, .malformed, detail: "\(error)")
        }
    }

    func segment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    private static func withoutUserInformation(_ text: String) -> String {
        URL(string: text).map(displayName) ?? text
    }

    /// A decoder's account of what was wrong with the JSON, in a few words.
    static func describe(_ error: DecodingError) -> String {
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not JSON" : "unreadable at \(path(context.codingPath))"
        case .keyNotFound(let key, _): return "no \"\(key.stringValue)\""
        case .typeMismatch(let type, let context): return "\(path(context.codingPath)) is not \(type)"
        case .valueNotFound(let type, let context): return "\(path(context.codingPath)) is null, not \(type)"
        @unknown default: return "undecodable"
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty
            ? "the top level" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}

struct RawChanges: Decodable {
    let add: [String]?
    let remove: [String]?
    let timestamp: Int64?
}

struct RawSyncGroups: Encodable {
    let synchronize: [[String]]
    let stopSynchronize: [String] = []

    enum CodingKeys: String, CodingKey {
        case synchronize
        case stopSynchronize = "stop-synchronize"
    }
}

struct RawPush: Encodable {
    let add: [String]
    let remove: [String]
}

struct RawPushAnswer: Decodable {
    let timestamp: Int64?
    let updateURLs: [[String]]?

    enum CodingKeys: String, CodingKey {
        case timestamp
        case updateURLs = "update_urls"
    }
}
