import AsyncHTTPClient
import ConsoleOutput
import FeedFetching
import FeedModels
import FeedParsing
import FeedScheduling
import Foundation
import GPodderSync
import HTTPTransport
import Measures
import RefreshEngine

/// Everything a command needs, wired once: the store, the feed source over one shared HTTP client, the coordinator,
/// the update service and the renderer. Built only by
/// ``withRefreshEnvironment(_:fetch:schedule:output:hook:hookTimeout:body:)``, which shuts the HTTP client down whatever
/// happens.
struct RefreshEnvironment: Sendable {
    let store: any FeedRepositories
    /// On PostgreSQL: this process is a worker of a fleet and claims feeds (nil on SQLite).
    let claims: (any FeedClaiming)?
    let source: any FeedSource
    let coordinator: DataFetchCoordinator
    /// Every event of the command (fetches, downloads, hooks, podping), drawn by the renderer within ``withEvents(_:)``.
    let events: EventHub
    let updates: UIUpdateService
    let renderer: ConsoleRenderer
    let service: EpisodeUpdateService
    /// The clock of the command: waits on this machine's, dates by the store's (a fleet's PostgreSQL server may differ
    /// from this machine; on SQLite they are the same).
    let clock: AppClock
    /// The network feeds are fetched over (the podping reader's requests go through it too).
    let network: HTTPNetwork
    /// Podping state and the chain's cursor.
    let podpingStore: any PodpingRepository
    /// The sync set-up, its cursor and the feeds the server is known to hold.
    let syncStore: any SyncRepository
    /// The SQLite file, when the store is one (the sync password is kept beside it).
    let sqlitePath: String?

    /// Now, by the store's clock.
    func now() -> Date { clock.date }

    /// Runs `body` with the renderer drawing every event, and returns once every event published was drawn.
    func withEvents<R>(_ body: () async throws -> R) async throws -> R {
        try await podfresh.withEvents(events, drawnThrough: updates, body)
    }

    /// The sources of "due now" the command was given (`--podping`; sync once it is set up), each publishing to the
    /// command's events.
    func dueSources(podping: PodpingSettings?, sync: SubscriptionSync? = nil) -> [any DueSource] {
        var sources: [any DueSource] = []
        if let sync { sources.append(sync) }
        if let podping { sources.append(podpingWatcher(podping)) }
        return sources
    }

    /// The sync with the server set up by `sync setup`, publishing to the command's events; nil when sync is not set
    /// up. A set-up whose password is gone still gives one, whose every sync fails saying what to do.
    func subscriptionSync(interval: Duration = SyncSettings.defaultInterval) async throws -> SubscriptionSync? {
        guard let state = try await syncStore.syncState() else { return nil }
        var password: String?
        var unusable: SyncFailure?
        if let sqlitePath {
            let path = SyncCredentials.passwordPath(forDatabaseAt: sqlitePath)
            do {
                password = try SyncCredentials.read(from: path)
            } catch {
                unusable = SyncFailure(
                    step: .pull, kind: .noPassword, server: SyncServerClient.displayName(state.setup.server),
                    detail: "\(error)")
            }
            if password == nil, unusable == nil {
                unusable = SyncFailure(
                    step: .pull, kind: .noPassword, server: SyncServerClient.displayName(state.setup.server),
                    detail: "no file \(path)")
            }
        } else {
            password = try await syncStore.syncPassword()
            if password == nil {
                unusable = SyncFailure(
                    step: .pull, kind: .noPassword, server: SyncServerClient.displayName(state.setup.server),
                    detail: "not in the database")
            }
        }
        let client = SyncServerClient(setup: state.setup, password: password ?? "", network: network)
        return SubscriptionSync(
            settings: SyncSettings(
                client: client, interval: interval, worker: FleetSettings.thisProcess, unusable: unusable),
            store: syncStore, subscriptions: store, clock: clock,
            publish: events.publish, publishDownload: events.publish)
    }

    /// The podping reader for `settings`, publishing to the command's events.
    private func podpingWatcher(_ settings: PodpingSettings) -> PodpingWatcher {
        PodpingWatcher(
            settings: settings, network: network, store: podpingStore, subscriptions: store, clock: clock,
            publish: events.publish)
    }
}

/// How a refresh's lines are laid out, beside the ``OutputMode``.
struct OutputLayout: Sendable {
    /// `watch`: a feed's failure that repeats its last is not printed again (cron mode always does this).
    var quietRepeats = false
    /// `--wide`: on a terminal every line whole, media URLs included.
    var wide = false
    /// Plain lines on a terminal (`add`, which draws no progress line): fitted to its width.
    var fitsPlainLines = false
}

/// The composition root: opens the store, creates the HTTP client and the engine, runs `body`, and shuts down.
/// `lease` is how long a worker's claim on a feed lasts on a shared store (`--lease`).
func withRefreshEnvironment<Result: Sendable>(
    _ global: GlobalOptions,
    fetch: FetchOptions,
    schedule: ScheduleOptions? = nil,
    output: OutputMode,
    layout: OutputLayout = OutputLayout(),
    hook: String? = nil,
    hookTimeout: Duration = NewEpisodeHook.defaultTimeout,
    lease: Duration = .seconds(300),
    downloads: EpisodeDownloadSettings? = nil,
    followsPodping: Bool = false,
    body: (RefreshEnvironment) async throws -> Result
) async throws -> Result {
    // A StoreError escaping from here exits 70 through ExitStatus.mapping, like every command's.
    try await withStore(global) { store in
        try await withEnvironment(
            store: store, fetch: fetch, schedule: schedule, output: output, layout: layout, hook: hook,
            hookTimeout: hookTimeout,
            lease: lease, downloads: downloads, followsPodping: followsPodping, body: body)
    }
}

private func withEnvironment<Result: Sendable>(
    store: OpenStore,
    fetch: FetchOptions,
    schedule: ScheduleOptions?,
    output: OutputMode,
    layout: OutputLayout,
    hook: String?,
    hookTimeout: Duration,
    lease: Duration,
    downloads: EpisodeDownloadSettings?,
    followsPodping: Bool,
    body: (RefreshEnvironment) async throws -> Result
) async throws -> Result {
    let clock = AppClock.system.shifted(by: try await store.claims?.clockOffset() ?? 0)
    return try await withFeedNetwork(fetch) { source, network in
        let events = EventHub()
        // A host whose answers come over HTTP/2 takes up to its stream limit at once on its one connection.
        let coordinator = DataFetchCoordinator(
            maxConcurrent: fetch.jobs, maxPerHost: fetch.perHost, events: events, clock: clock,
            multiplexedLimit: { network.multiplexedStreams(host: $0) })
        let updates = UIUpdateService()
        let renderer = ConsoleRenderer(
            mode: output, quietRepeats: layout.quietRepeats, wide: layout.wide, fitsPlainLines: layout.fitsPlainLines)
        renderer.attach(to: updates)
        let policy =
            schedule.map {
                SchedulePolicy(
                    minInterval: $0.minInterval.seconds, maxInterval: $0.maxInterval.seconds,
                    revalidateEvery: $0.revalidateEvery.seconds)
            } ?? SchedulePolicy()
        var configuration = EpisodeUpdateConfiguration(schedulePolicy: policy, hookCommand: hook)
        configuration.hookTimeout = hookTimeout
        configuration.clock = clock
        configuration.readsWhole = schedule?.full ?? false
        if followsPodping {
            // A store that cannot say which feeds were pinged leaves every feed on its own schedule.
            let podping = store.podping
            configuration.pingedFeeds = {
                let now = clock.date
                let states = (try? await podping.podpingStates()) ?? [:]
                return Set(states.filter { $0.value.pingsSeen(at: now) }.keys)
            }
        }
        // Downloads share the feeds' network: names resolved once, connections to a host reused by both.
        configuration.downloads = downloads.map {
            var settings = $0
            settings.network = network
            return settings
        }
        // Standard output of `--json` is JSON Lines only; the hook's output goes to standard error there.
        if output == .json { configuration.hookOutput = .standardErrorOnly }
        let service = EpisodeUpdateService(
            store: store.repositories, claims: store.claims,
            fleet: FleetSettings(worker: FleetSettings.thisProcess, lease: lease),
            source: source, coordinator: coordinator, configuration: configuration)
        let environment = RefreshEnvironment(
            store: store.repositories, claims: store.claims, source: source, coordinator: coordinator,
            events: events, updates: updates, renderer: renderer, service: service, clock: clock,
            network: network,
            podpingStore: store.podping, syncStore: store.sync, sqlitePath: store.sqlitePath)
        return try await body(environment)
    }
}

/// Runs `body` with `updates` delivering `events` (the renderer attached to `updates` draws them), then ends the
/// events and waits until every one was drawn, whether `body` returned or threw: what the last moments published is
/// printed before whatever follows (a summary, an error that ends the command).
func withEvents<R>(
    _ events: EventHub, drawnThrough updates: UIUpdateService, _ body: () async throws -> R
) async throws -> R {
    updates.attach(to: events)
    let result: Result<R, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    events.finish()
    await updates.drain()
    return try result.get()
}

/// The feed source alone (HTTP through one network, and files), shut down when `body` returns or throws.
func withFeedSource<Result: Sendable>(
    _ fetch: FetchOptions,
    body: (any FeedSource) async throws -> Result
) async throws -> Result {
    try await withFeedNetwork(fetch) { source, _ in try await body(source) }
}

/// The feed source and the network under it (one resolver, one connection pool per host), for downloads to share;
/// shut down when `body` returns or throws.
func withFeedNetwork<Result: Sendable>(
    _ fetch: FetchOptions,
    body: (any FeedSource, HTTPNetwork) async throws -> Result
) async throws -> Result {
    let configuration = fetch.configuration
    return try await HTTPNetwork.withNetwork(resolver: HostResolver(policy: configuration.resolverPolicy)) { network in
        try await body(
            RoutingFeedSource(
                http: HTTPFeedSource(network: network, configuration: configuration),
                file: FileFeedSource(
                    maxBodyBytes: configuration.maxBodyBytes)),
            network)
    }
}

/// Turns what a user typed into a feed URL: http(s) and file URLs as they are, paths as `file://` URLs.
enum FeedAddress {
    /// - Returns: nil for other schemes (`javascript:`, `ftp:` …) and empty input.
    static func url(from input: String) -> URL? {
        let text = input.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        if let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme.count > 1 {
            switch scheme {
            case "http", "https": return url.host?.isEmpty == false ? url : nil
            case "file": return url
            default: return nil
            }
        }
        let path = (text as NSString).expandingTildeInPath
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: (absolute as NSString).standardizingPath)
    }
}
