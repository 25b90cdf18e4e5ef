import Foundation
import Synchronization
import Testing

@testable import HTTPTransport

/// A lookup function that answers after a delay on a thread of its own, never answers for names in `silent`, says
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
        let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
            counts.withLock { $0.inFlight -= 1 }
            if missing.contains(host) {
                done(.failure(NameLookupError(kind: .noSuchHost, host: host)))
            } else {
                done(.success([ResolvedAddress(ip: "127.0.0.1", isIPv6: false)]))
            }
        }
    }

    func resolver(timeout: Duration = .seconds(5)) -> HostResolver {
        HostResolver(policy: HostResolver.Policy(lookupTimeout: timeout)) { host, done in self.lookUp(host, done) }
    }
}

@Suite(.timeLimit(.minutes(1)))
struct HostResolverTests {
    @Test func namesResolveSideBySideNotOneAfterAnother() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(300))
        let resolver = lookups.resolver()
        let names = (1...20).map { "host\($0).example" }
        let started = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for name in names { group.addTask { _ = try await resolver.addresses(for: name) } }
            try await group.waitForAll()
        }
        let took = started.duration(to: .now)
        #expect(lookups.mostInFlight == 20)
        #expect(resolver.statistics.mostInFlight == 20)
        // One after another would take 6 s.
        #expect(took < .seconds(3), "20 lookups of 300 ms took \(took)")
    }

    @Test func callersOfOneNameShareOneLookupAndItsAnswer() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(100))
        let resolver = lookups.resolver()
        try await withThrowingTaskGroup(of: [ResolvedAddress].self) { group in
            for _ in 0..<50 { group.addTask { try await resolver.addresses(for: "Feeds.Example") } }
            for try await addresses in group { #expect(addresses.map(\.ip) == ["127.0.0.1"]) }
        }
        _ = try await resolver.addresses(for: "feeds.example")
        #expect(lookups.started == ["Feeds.Example"])
        #expect(resolver.statistics.lookups == 1)
        #expect(resolver.statistics.shared == 50)
    }

    @Test func aNameThatDoesNotExistIsRememberedAsSuch() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(10), missing: ["gone.example"])
        let resolver = lookups.resolver()
        for _ in 0..<3 {
            await #expect(throws: NameLookupError(kind: .noSuchHost, host: "gone.example")) {
                try await resolver.addresses(for: "gone.example")
            }
        }
        #expect(lookups.started == ["gone.example"])
    }

    @Test func aNameThatNeverAnswersCostsItsOwnCallersTheTimeoutAndNobodyElseAnything() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(50), silent: ["silent.example"])
        let resolver = lookups.resolver(timeout: .milliseconds(800))
        let clock = ContinuousClock()
        let started = clock.now
        let silentTask = Task { () -> Duration in
            do {
                _ = try await resolver.addresses(for: "silent.example")
                Issue.record("a silent name resolved")
            } catch let error as NameLookupError {
                #expect(error.kind == .timedOut(.milliseconds(800)))
            } catch {
                Issue.record("unexpected \(error)")
            }
            return started.duration(to: clock.now)
        }
        // Names asked for after the silent one still answer in their own time.
        try await Task.sleep(for: .milliseconds(20))
        try await withThrowingTaskGroup(of: Duration.self) { group in
            for index in 0..<30 {
                group.addTask {
                    _ = try await resolver.addresses(for: "good\(index).example")
                    return started.duration(to: clock.now)
                }
            }
            for try await took in group { #expect(took < .milliseconds(600), "a good name took \(took)") }
        }
        let silentTook = await silentTask.value
        #expect(silentTook >= .milliseconds(750) && silentTook < .seconds(3), "the silent name took \(silentTook)")
        // The timeout is remembered: the next caller is told at once, and no second lookup starts.
        let again = clock.now
        await #expect(throws: NameLookupError.self) { try await resolver.addresses(for: "silent.example") }
        #expect(again.duration(to: clock.now) < .milliseconds(200))
        #expect(lookups.started.filter { $0 == "silent.example" }.count == 1)
    }

    @Test func aCancelledCallerStopsWaitingWithoutEndingTheLookupForOthers() async throws {
        let lookups = ScriptedLookups(delay: .milliseconds(400))
        let resolver = lookups.resolver()
        let cancelled = Task { try await resolver.addresses(for: "shared.example") }
        let patient = Task { try await resolver.addresses(for: "shared.example") }
        try await Task.sleep(for: .milliseconds(50))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        let answer = try await patient.value
        #expect(answer.map(\.ip) == ["127.0.0.1"])
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
