import Foundation
import Testing

/// podfresh against a simulated internet (Scripts/netsim.sh): a resolver that takes its time, names that never answer,
/// busy hosts, HTTPS through a test CA and HTTP/2. Each test brings up its own network namespace, runs the built
/// binary inside it and judges it by what the simulator counted.
@Suite(
    .serialized,
    .enabled("needs root and a working `ip netns` (Scripts/netsim.sh check)") { SimulatedInternet.isAvailable }
)
struct InternetTests {
    /// Twenty names, each behind a resolver that takes 300 ms: the lookups overlap (the simulator's resolver counts
    /// them in flight), where one lookup after another would take 6 s.
    @Test(.timeLimit(.minutes(1)))
    func lookupsRunConcurrently() async throws {
        let names = 20
        let layout = NetLayout(
            hosts: (1...names).map { NetLayout.Host(name: "host\($0).lookup.test", feeds: 1) }, dnsDelayMs: 300)
        let internet = try await SimulatedInternet.start(layout)
        defer { internet.stop() }

        let run = try await internet.refresh(["--jobs", "\(names)"])
        let stats = try await internet.statistics()

        #expect(run.status == 0, "\(run.summary)")
        #expect(run.events("feed_refreshed").count == names, "\(run.summary)")
        #expect(
            stats.totals.maxLookupsInFlight >= names / 2,
            "at most \(stats.totals.maxLookupsInFlight) of \(names) names were being resolved at once")
    }

    /// One name whose resolver never answers, among twelve good ones: every good feed is fetched and stored before
    /// the silent name gives up, and the run ends soon after the silent name's timeout (`--timeout 3s`, shorter than
    /// the resolver's own 5 s x 2 attempts), not later. Judged by the order of the run's events, not by wall time.
    @Test(.timeLimit(.minutes(1)))
    func silentNameDelaysNoOtherFeed() async throws {
        var hosts = (1...12).map {
            NetLayout.Host(name: "good\($0).silence.test", feeds: 1, delaysMs: [100 + ($0 % 3) * 100])
        }
        hosts.insert(NetLayout.Host(name: "never.silence.test", feeds: 1, dns: "silent"), at: 0)
        let internet = try await SimulatedInternet.start(NetLayout(hosts: hosts))
        defer { internet.stop() }

        let run = try await internet.refresh(["--jobs", "16", "--timeout", "3s"])
        let refreshed = run.events("feed_refreshed")
        let failed = run.events("feed_failed")

        #expect(refreshed.count == 12, "good feeds refreshed: \(refreshed.count) of 12; \(run.summary)")
        #expect(failed.count == 1, "\(run.summary)")
        #expect((failed.first?.event["url"] as? String)?.contains("never.silence.test") == true)
        let lastGood = refreshed.map(\.at).max() ?? run.wallTime
        let silent = try #require(failed.first)
        #expect(lastGood < silent.at, "a good feed finished after the silent name had given up")
        #expect(silent.at >= .seconds(3), "the silent name gave up at \(silent.at), before its 3 s timeout")
        // Not later: the resolver's own 5 s x 2 attempts for the silent name are not waited for.
        #expect(
            run.wallTime - silent.at < .seconds(10),
            "the run went on for \(run.wallTime - silent.at) after the silent name had given up")
        let stored = try await Shell.run([
            SimulatedInternet.podfresh.path, "list", "--database", internet.databasePath, "--json",
        ])
        #expect(stored.stdout.components(separatedBy: "\"title\":\"good").count - 1 == 12, "\(stored.stdout)")
    }

    /// Twenty-four feeds on one host: with `--per-host 3` the host never sees more than 3 requests at once (and does
    /// see 3), and with podfresh's default limit never more than that default.
    @Test(.timeLimit(.minutes(1)))
    func perHostLimitHolds() async throws {
        let layout = NetLayout(hosts: [NetLayout.Host(name: "busy.perhost.test", feeds: 24, delaysMs: [150])])
        let internet = try await SimulatedInternet.start(layout)
        defer { internet.stop() }

        let limited = try await internet.refresh(["--jobs", "16", "--per-host", "3"])
        let withThree = try await internet.statistics(reset: true)
        #expect(limited.status == 0, "\(limited.summary)")
        #expect(withThree.totals.requests == 24)
        #expect(
            withThree.totals.maxRequestsInFlightPerHost == 3,
            "--per-host 3: at most \(withThree.totals.maxRequestsInFlightPerHost) at once")

        let help = try await SimulatedInternet.refreshHelp()
        let defaultLimit = try #require(Self.defaultPerHost(in: help), "no --per-host default in: \(help)")
        let unlimited = try await internet.refresh(["--jobs", "16"])
        let withDefault = try await internet.statistics()
        #expect(unlimited.status == 0, "\(unlimited.summary)")
        #expect(withDefault.totals.requests == 24)
        #expect(
            withDefault.totals.maxRequestsInFlightPerHost <= defaultLimit,
            "default --per-host \(defaultLimit): \(withDefault.totals.maxRequestsInFlightPerHost) at once")
    }

    /// A warm run (every feed answers 304) over a plain HTTP/1.1 host, an HTTPS host and an HTTP/2 host reuses its
    /// connections and its name lookups: well under one connection, and one lookup, per request.
    @Test(.timeLimit(.minutes(1)))
    func connectionsAndNamesAreReused() async throws {
        let layout = NetLayout(hosts: [
            NetLayout.Host(name: "plain.reuse.test", feeds: 8, delaysMs: [100]),
            NetLayout.Host(name: "secure.reuse.test", feeds: 8, tls: true, delaysMs: [100]),
            NetLayout.Host(name: "multiplexed.reuse.test", feeds: 8, tls: true, h2: true, delaysMs: [100]),
        ])
        let internet = try await SimulatedInternet.start(layout)
        defer { internet.stop() }

        // At most 2 requests at once per host, so an HTTP/1.1 host needs at most 2 connections for its 8 feeds.
        let cold = try await internet.refresh(["--per-host", "2"])
        #expect(cold.status == 0, "\(cold.summary)")
        try await internet.resetStatistics()
        let warm = try await internet.refresh(["--per-host", "2"])
        let stats = try await internet.statistics()

        #expect(warm.status == 0, "\(warm.summary)")
        #expect(stats.totals.requests == 24)
        #expect(stats.totals.notModified == 24, "warm run: \(stats.totals.notModified) of 24 answered 304")
        #expect(
            stats.totals.connections <= 24 / 3,
            "warm run: \(stats.totals.connections) connections for 24 requests: \(Self.perHost(stats))")
        #expect(
            stats.addressLookups <= 24 / 3,
            "warm run: \(stats.addressLookups) name lookups (A queries) for 24 requests to 3 names")
    }

    /// HTTPS through the namespace's test CA works, and feeds of a host that offers HTTP/2 are asked over it: once its
    /// first answer came over HTTP/2, its feeds go side by side over one connection, past `--per-host` (which an
    /// HTTP/1.1 host keeps).
    @Test(.timeLimit(.minutes(1)))
    func httpsWorksAndFeedsOfAnHTTP2HostGoSideBySideOverItsConnection() async throws {
        let layout = NetLayout(hosts: [
            NetLayout.Host(name: "secure.tls.test", feeds: 6, tls: true, delaysMs: [150]),
            NetLayout.Host(name: "multiplexed.tls.test", feeds: 12, tls: true, h2: true, delaysMs: [150]),
        ])
        let internet = try await SimulatedInternet.start(layout)
        defer { internet.stop() }

        let run = try await internet.refresh(["--per-host", "2", "--jobs", "16"])
        let stats = try await internet.statistics()

        #expect(run.status == 0, "\(run.summary)")
        #expect(run.events("feed_refreshed").count == 18, "\(run.summary)")
        let secure = try #require(stats.hosts["secure.tls.test"])
        let multiplexed = try #require(stats.hosts["multiplexed.tls.test"])
        #expect(secure.statuses["200"] == 6)
        #expect(secure.h2Requests == 0)
        #expect(secure.maxInFlight <= 2, "an HTTP/1.1 host keeps --per-host: \(secure.maxInFlight) at once")
        #expect(multiplexed.statuses["200"] == 12)
        #expect(multiplexed.h2Requests == 12, "HTTP/2 streams: \(multiplexed.h2Requests) of 12 requests")
        #expect(multiplexed.maxInFlight > 2, "\(multiplexed.maxInFlight) at once over HTTP/2")
        #expect(multiplexed.connections <= 2, "\(multiplexed.connections) connections for 12 requests")
    }

    /// With `--http1`, the feeds of a host that offers HTTP/2 are asked over HTTP/1.1, at most `--per-host` at once.
    @Test(.timeLimit(.minutes(1)))
    func withHTTP1FeedsOfAnHTTP2HostGoOverHTTP1WithinPerHost() async throws {
        let layout = NetLayout(hosts: [
            NetLayout.Host(name: "multiplexed.tls.test", feeds: 12, tls: true, h2: true, delaysMs: [150])
        ])
        let internet = try await SimulatedInternet.start(layout)
        defer { internet.stop() }

        let run = try await internet.refresh(["--per-host", "2", "--jobs", "16", "--http1"])
        let stats = try await internet.statistics()

        #expect(run.status == 0, "\(run.summary)")
        let multiplexed = try #require(stats.hosts["multiplexed.tls.test"])
        #expect(multiplexed.statuses["200"] == 12)
        #expect(multiplexed.h2Requests == 0, "HTTP/2 streams: \(multiplexed.h2Requests)")
        #expect(multiplexed.maxInFlight <= 2, "\(multiplexed.maxInFlight) at once over HTTP/1.1")
    }

    // MARK: - Helpers

    /// The `(default: N)` of `--per-host` in `podfresh refresh --help`.
    static func defaultPerHost(in help: String) -> Int? {
        let lines = help.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.contains("--per-host") }) else { return nil }
        for line in lines[start..<min(lines.count, start + 4)] {
            if let range = line.range(of: "(default: ") {
                return Int(line[range.upperBound...].prefix { $0.isNumber })
            }
        }
        return nil
    }

    static func perHost(_ stats: NetStatistics) -> String {
        stats.hosts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.connections) for \($0.value.requests)" }
            .joined(separator: ", ")
    }
}
