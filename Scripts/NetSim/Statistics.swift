import Foundation
import Synchronization

/// Everything the simulated internet saw clients do: per host, per name and per feed path.
///
/// Handlers on every event loop call in here; each call takes the lock once and never across I/O. `reset()` zeroes
/// the counters between two runs but keeps what is open right now (connections, requests, lookups), so a maximum
/// after a reset still counts what was already under way.
final class Statistics: Sendable {
    /// What one host saw.
    struct HostCounters: Codable, Sendable {
        /// Connections accepted (for TLS hosts: handshakes begun).
        var connections = 0
        var openConnections = 0
        /// The most connections open at once.
        var maxOpenConnections = 0
        /// Requests (HTTP/1.1 requests and HTTP/2 streams).
        var requests = 0
        /// Of those, HTTP/2 streams.
        var h2Requests = 0
        var inFlight = 0
        /// The most requests received and not yet fully answered at once.
        var maxInFlight = 0
        var notModified = 0
        /// Answers by status code.
        var statuses: [String: Int] = [:]
        /// Body bytes sent.
        var bodyBytes = 0
        /// Request-seconds: the time-integral of the requests in flight (6 requests for 2 s count 12).
        var requestSeconds = 0.0
        /// Seconds since the counters began (or were reset) when the first request arrived and the last one ended.
        var firstRequestAt: Double?
        var lastFinishedAt: Double?
        /// When ``inFlight`` last changed, for ``requestSeconds``.
        var lastChange: Double?
    }

    /// What the DNS server saw for one name.
    struct NameCounters: Codable, Sendable {
        var queries = 0
        var a = 0
        var aaaa = 0
        var other = 0
        var inFlight = 0
        /// The most queries for this name received and not yet answered at once (0 for a silent name, which never
        /// answers).
        var maxInFlight = 0
    }

    /// What one feed path on one host saw.
    struct PathCounters: Codable, Sendable {
        var requests = 0
        var ok = 0
        var notModified = 0
    }

    /// The figures a run is judged by, over every host and name.
    struct Totals: Codable, Sendable {
        var seconds = 0.0
        var connections = 0
        var requests = 0
        var h2Requests = 0
        var ok = 0
        var notModified = 0
        var otherStatuses = 0
        var bodyBytes = 0
        /// The most requests at once on any one host.
        var maxRequestsInFlightPerHost = 0
        /// The most connections open at once to any one host.
        var maxConnectionsOpenPerHost = 0
        var dnsQueries = 0
        /// The most DNS queries received and not yet answered at once (silent names left out).
        var maxQueriesInFlight = 0
        /// The most names with a query received and not yet answered at once (silent names left out): lookups in flight.
        var maxLookupsInFlight = 0
    }

    /// The JSON served at `/stats` and written on SIGTERM.
    struct Snapshot: Codable, Sendable {
        var totals: Totals
        var hosts: [String: HostCounters]
        var names: [String: NameCounters]
        /// Keyed `name/path`.
        var paths: [String: PathCounters]
    }

    private struct State {
        var since = ContinuousClock.now
        var hosts: [String: HostCounters] = [:]
        var names: [String: NameCounters] = [:]
        var paths: [String: PathCounters] = [:]
        var dnsQueries = 0
        var queriesInFlight = 0
        var maxQueriesInFlight = 0
        var namesInFlight = 0
        var maxNamesInFlight = 0
    }

    private let state = Mutex(State())

    // MARK: - HTTP

    func connectionOpened(host: String) {
        state.withLock { s in
            s.hosts[host, default: .init()].connections += 1
            s.hosts[host]!.openConnections += 1
            s.hosts[host]!.maxOpenConnections = max(s.hosts[host]!.maxOpenConnections, s.hosts[host]!.openConnections)
        }
    }

    func connectionClosed(host: String) {
        state.withLock { s in s.hosts[host, default: .init()].openConnections -= 1 }
    }

    func requestStarted(host: String, path: String, h2: Bool) {
        state.withLock { s in
            var h = s.hosts[host, default: .init()]
            h.requests += 1
            if h2 { h.h2Requests += 1 }
            let now = s.since.duration(to: .now).seconds
            h.requestSeconds += Double(h.inFlight) * (now - (h.lastChange ?? now))
            h.lastChange = now
            if h.firstRequestAt == nil { h.firstRequestAt = now }
            h.inFlight += 1
            h.maxInFlight = max(h.maxInFlight, h.inFlight)
            s.hosts[host] = h
            s.paths[host + path, default: .init()].requests += 1
        }
    }

    /// A request's answer was sent in full (`status` non-nil) or abandoned when the connection closed (nil).
    func requestFinished(host: String, path: String, status: Int?, bodyBytes: Int) {
        state.withLock { s in
            var h = s.hosts[host, default: .init()]
            let now = s.since.duration(to: .now).seconds
            h.requestSeconds += Double(h.inFlight) * (now - (h.lastChange ?? now))
            h.lastChange = now
            h.lastFinishedAt = now
            h.inFlight -= 1
            h.bodyBytes += bodyBytes
            let key = status.map(String.init) ?? "abandoned"
            h.statuses[key, default: 0] += 1
            if status == 304 { h.notModified += 1 }
            s.hosts[host] = h
            if status == 200 { s.paths[host + path, default: .init()].ok += 1 }
            if status == 304 { s.paths[host + path, default: .init()].notModified += 1 }
        }
    }

    // MARK: - DNS

    /// A query arrived; `answered` is false for a silent name, which never gets one.
    func queryReceived(name: String, type: UInt16, answered: Bool) {
        state.withLock { s in
            s.dnsQueries += 1
            var n = s.names[name, default: .init()]
            n.queries += 1
            switch type {
            case 1: n.a += 1
            case 28: n.aaaa += 1
            default: n.other += 1
            }
            if answered {
                n.inFlight += 1
                n.maxInFlight = max(n.maxInFlight, n.inFlight)
                if n.inFlight == 1 {
                    s.namesInFlight += 1
                    s.maxNamesInFlight = max(s.maxNamesInFlight, s.namesInFlight)
                }
                s.queriesInFlight += 1
                s.maxQueriesInFlight = max(s.maxQueriesInFlight, s.queriesInFlight)
            }
            s.names[name] = n
        }
    }

    func queryAnswered(name: String) {
        state.withLock { s in
            var n = s.names[name, default: .init()]
            n.inFlight -= 1
            if n.inFlight == 0 { s.namesInFlight -= 1 }
            s.names[name] = n
            s.queriesInFlight -= 1
        }
    }

    // MARK: - Reading

    /// Zeroes every counter; what is open now stays counted as open.
    func reset() {
        state.withLock { s in
            s.since = .now
            for (key, h) in s.hosts {
                var fresh = HostCounters()
                fresh.openConnections = h.openConnections
                fresh.maxOpenConnections = h.openConnections
                fresh.inFlight = h.inFlight
                fresh.maxInFlight = h.inFlight
                fresh.lastChange = h.inFlight > 0 ? 0 : nil
                s.hosts[key] = fresh
            }
            for (key, n) in s.names {
                var fresh = NameCounters()
                fresh.inFlight = n.inFlight
                fresh.maxInFlight = n.inFlight
                s.names[key] = fresh
            }
            s.paths = [:]
            s.dnsQueries = 0
            s.maxQueriesInFlight = s.queriesInFlight
            s.maxNamesInFlight = s.namesInFlight
        }
    }

    func snapshot() -> Snapshot {
        state.withLock { s in
            var t = Totals()
            let elapsed = ContinuousClock.now - s.since
            t.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            for h in s.hosts.values {
                t.connections += h.connections
                t.requests += h.requests
                t.h2Requests += h.h2Requests
                t.ok += h.statuses["200"] ?? 0
                t.notModified += h.notModified
                t.otherStatuses += h.statuses.filter { $0.key != "200" && $0.key != "304" }.values.reduce(0, +)
                t.bodyBytes += h.bodyBytes
                t.maxRequestsInFlightPerHost = max(t.maxRequestsInFlightPerHost, h.maxInFlight)
                t.maxConnectionsOpenPerHost = max(t.maxConnectionsOpenPerHost, h.maxOpenConnections)
            }
            t.dnsQueries = s.dnsQueries
            t.maxQueriesInFlight = s.maxQueriesInFlight
            t.maxLookupsInFlight = s.maxNamesInFlight
            return Snapshot(totals: t, hosts: s.hosts, names: s.names, paths: s.paths)
        }
    }

    func json() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return (try? encoder.encode(snapshot())) ?? Data("{}".utf8)
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    fileprivate var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
