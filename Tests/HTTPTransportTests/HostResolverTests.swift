import Foundation
import Measures
import Synchronization
import TestSupport
import Testing

@testable import HTTPTransport

/// A lookup function that answers after a delay on the test's manual clock, never answers for names in `silent`, says
/// "no such host" for names in `missing`, and counts lookups in flight: a fake only to force waits and silences
/// that a real resolver cannot produce on demand (the namespace tests use a real DNS server for the rest).
private final class ScriptedLookups: Sendable {
    private struct Counts {
        var started: [String] = []
        var inFlight = 0
        var mostInFlight = 0
    }

    let delay: Duration
    let silent: Set<String>
    let missing: Set<String>
    let clock = ManualClock()
    private let counts = Mutex(Counts())

    init(delay: Duration, silent: Set<String> = [], missing: Set<String> = []) {
        self.delay = delay
        self.silent = silent
        self.missing = missing
    }

    var started: [String] { counts.withLock { $0.started } }
    var mostInFlight: Int { counts.withLock { $0.mostInFlight } }

    func lookUp(_ host: String, _ done: @escaping @Sendable (Result<[ResolvedAddress], NameLookupError>) -> Void) {
        counts.withLock {
            $0.started.append(host)
            $0.inFlight += 1
            $0.mostInFlight = max($0.mostInFlight, $0.inFlight)
        }
        guard !silent.contains(host) else { return }
        let clock = AppClock.manual(clock)
        Task { [self] in
            try await clock.sleep(for: delay)
            counts.withLock { $0.inFlight -= 1 }
            if missing.contains(host) {
                done(.failure(NameLookupError(kind: .noSuchHost, host: host)))
            } else {
                done(.success([ResolvedAddress(ip: "127.0.0.1", isIPv6: false)]))
            }
        }
    }

    func resolver(timeout: Duration = .seconds(5)) -> HostResolver {
        HostResolver(policy: HostResolver.Policy(lookupTimeout: timeout), clock: .manual(clock)) { host, done in
            self.lookUp(host, done)
        }
    }

    /// The clock time since the test began.
    var elapsed: Duration { clock.offset }
}

/// Each lookup of a name waits on two sleeps of the manual clock: the scripted answer's and the resolver's timeout.
private let sleepsPerLookup = 2

@Suite(.timeLimit(.minutes(1)))
struct HostResolverTests {
    @Test func namesResolveSideBySideNotOneAfterAnother() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(300))
        let resolver = lookups.resolver()
        let names = (1...20).map { "host\($0).example" }
        let tasks = names.map { name in
            Task { () -> Duration in
                _ = try await resolver.addresses(for: name)
                return lookups.elapsed
            }
        }
        defer { for task in tasks { task.cancel() } }
        // One after another, only the first lookup would be waiting now.
        try #require(await lookups.clock.waitForSleepers(names.count * sleepsPerLookup))
        await lookups.clock.advance(by: .milliseconds(300))
        for task in tasks { #expect(try await task.value == .milliseconds(300)) }
        #expect(lookups.mostInFlight == 20)
        #expect(resolver.statistics.mostInFlight == 20)
    }

    @Test func callersOfOneNameShareOneLookupAndItsAnswer() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(100))
        let resolver = lookups.resolver()
        let tasks = (0..<50).map { _ in Task { try await resolver.addresses(for: "Feeds.Example") } }
        defer { for task in tasks { task.cancel() } }
        try #require(await lookups.clock.waitForSleepers(sleepsPerLookup))
        await lookups.clock.advance(by: .milliseconds(100))
        for task in tasks { #expect(try await task.value.map(\.ip) == ["127.0.0.1"]) }
        _ = try await resolver.addresses(for: "feeds.example")
        #expect(lookups.started == ["Feeds.Example"])
        #expect(resolver.statistics.lookups == 1)
        #expect(resolver.statistics.shared == 50)
    }

    @Test func aNameThatDoesNotExistIsRememberedAsSuch() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(10), missing: ["gone.example"])
        let resolver = lookups.resolver()
        let first = Task { try await resolver.addresses(for: "gone.example") }
        try #require(await lookups.clock.waitForSleepers(sleepsPerLookup))
        await lookups.clock.advance(by: .milliseconds(10))
        await #expect(throws: NameLookupError(kind: .noSuchHost, host: "gone.example")) { try await first.value }
        for _ in 0..<2 {
            await #expect(throws: NameLookupError(kind: .noSuchHost, host: "gone.example")) {
                try await resolver.addresses(for: "gone.example")
            }
        }
        #expect(lookups.started == ["gone.example"])
    }

    @Test func aNameThatNeverAnswersCostsItsOwnCallersTheTimeoutAndNobodyElseAnything() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(50), silent: ["silent.example"])
        let resolver = lookups.resolver(timeout: .milliseconds(800))
        let silentTask = Task { () -> Duration in
            do {
                _ = try await resolver.addresses(for: "silent.example")
                Issue.record("a silent name resolved")
            } catch let error as NameLookupError {
                #expect(error.kind == .timedOut(.milliseconds(800)))
            } catch {
                Issue.record("unexpected \(error)")
            }
            return lookups.elapsed
        }
        // The silent lookup waits on its timeout alone.
        try #require(await lookups.clock.waitForSleepers(1))
        // Names asked for after the silent one still answer in their own time.
        let good = (0..<30).map { index in
            Task { () -> Duration in
                _ = try await resolver.addresses(for: "good\(index).example")
                return lookups.elapsed
            }
        }
        defer { for task in good { task.cancel() } }
        try #require(await lookups.clock.waitForSleepers(1 + good.count * sleepsPerLookup))
        await lookups.clock.advance(by: .milliseconds(50))
        for task in good { #expect(try await task.value == .milliseconds(50)) }
        // Only the silent name's timeout is still waiting.
        #expect(lookups.clock.sleeperCount == 1)
        await lookups.clock.advance(by: .milliseconds(750))
        #expect(await silentTask.value == .milliseconds(800))
        // The timeout is remembered: the next caller is told at once (the clock does not move), and no second lookup
        // starts.
        await #expect(throws: NameLookupError.self) { try await resolver.addresses(for: "silent.example") }
        #expect(lookups.elapsed == .milliseconds(800))
        #expect(lookups.started.filter { $0 == "silent.example" }.count == 1)
    }

    @Test func aCancelledCallerStopsWaitingWithoutEndingTheLookupForOthers() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(400))
        let resolver = lookups.resolver()
        let cancelled = Task { try await resolver.addresses(for: "shared.example") }
        try #require(await lookups.clock.waitForSleepers(sleepsPerLookup))
        let patient = Task { try await resolver.addresses(for: "shared.example") }
        try #require(await waitUntil { resolver.statistics.shared == 1 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        await lookups.clock.advance(by: .milliseconds(400))
        let answer = try await patient.value
        #expect(answer.map(\.ip) == ["127.0.0.1"])
    }

    @Test func answersAreKeptForTheirTimeAndThenLookedUpAgain() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(10))
        let resolver = HostResolver(
            policy: HostResolver.Policy(lookupTimeout: .seconds(5), keepAnswers: .seconds(300)),
            clock: .manual(lookups.clock)
        ) { host, done in lookups.lookUp(host, done) }
        let first = Task { try await resolver.addresses(for: "kept.example") }
        try #require(await lookups.clock.waitForSleepers(sleepsPerLookup))
        await lookups.clock.advance(by: .milliseconds(10))
        _ = try await first.value
        await lookups.clock.advance(by: .seconds(299))
        _ = try await resolver.addresses(for: "kept.example")
        #expect(lookups.started == ["kept.example"])
        await lookups.clock.advance(by: .seconds(1))
        let again = Task { try await resolver.addresses(for: "kept.example") }
        try #require(await lookups.clock.waitForSleepers(sleepsPerLookup))
        await lookups.clock.advance(by: .milliseconds(10))
        _ = try await again.value
        #expect(lookups.started == ["kept.example", "kept.example"])
    }

    @Test func addressLiteralsNeedNoLookup() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(10))
        let resolver = lookups.resolver()
        #expect(try await resolver.addresses(for: "192.0.2.7") == [ResolvedAddress(ip: "192.0.2.7", isIPv6: false)])
        #expect(
            try await resolver.addresses(for: "[2001:db8::1]") == [ResolvedAddress(ip: "2001:db8::1", isIPv6: true)])
        #expect(lookups.started.isEmpty)
    }

    @Test func theSystemResolverReadsEtcHosts() async throws {
        // `localhost` comes from /etc/hosts through nsswitch, as every program on the machine sees it.
        let addresses = try await HostResolver().addresses(for: "localhost")
        #expect(addresses.contains { $0.ip == "127.0.0.1" || $0.ip == "::1" }, "\(addresses)")
    }

    @Test func familiesAlternateStartingWithTheSystemsFirstChoice() {
        let v6 = (1...3).map { ResolvedAddress(ip: "2001:db8::\($0)", isIPv6: true) }
        let v4 = (1...2).map { ResolvedAddress(ip: "192.0.2.\($0)", isIPv6: false) }
        #expect(BlockingNameLookup.interleaved(v6 + v4) == [v6[0], v4[0], v6[1], v4[1], v6[2]])
        #expect(BlockingNameLookup.interleaved(v4 + v6) == [v4[0], v6[0], v4[1], v6[1], v6[2]])
    }
}
