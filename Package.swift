// swift-tools-version:6.1
import PackageDescription

/// The same strict settings on every target (house style): existential `any`, imports internal unless
/// written `public import`, and member lookups only through what a file imports itself.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "podfresh",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "podfresh", targets: ["podfresh"]),
        .library(name: "FeedParsing", targets: ["FeedParsing"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.29.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        /// sys/xattr.h, which Glibc's module leaves out: a `.part` keeps the whole file's length in an attribute.
        .systemLibrary(name: "CFileAttributes"),
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"]), .brew(["libxml2"])]
        ),
        /// jemalloc, the executable's allocator (see Sources/podfresh/Allocator.swift), and its control interface.
        .systemLibrary(
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"]), .brew(["jemalloc"])]
        ),
        /// The settings the executable gives jemalloc (its `malloc_conf` symbol).
        .target(name: "AllocatorSettings"),
        /// zlib's inflate, for feed bodies decoded as they stream (HTTPTransport's `BodyInflater`).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(
            name: "FeedParsing",
            dependencies: ["CLibXML2"],
            swiftSettings: strictSettings
        ),
        /// How every message writes a duration and a byte count (one style), how an unexpected error is named, and the
        /// threads blocking calls run on; no dependencies.
        .target(
            name: "Measures",
            swiftSettings: strictSettings
        ),
        /// The one network layer for feeds and media: concurrent, cached name resolution (getaddrinfo on threads of
        /// its own), one AsyncHTTPClient pool per host, redirects hop by hop, and the transfer limits' watchdog.
        .target(
            name: "HTTPTransport",
            dependencies: [
                "CZlib", "Measures",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FeedFetching",
            dependencies: [
                "HTTPTransport", "Measures",
                // Only for NIO's thread pool, which reads feed files off the cooperative pool (FileFeedSource).
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        /// The models every store shares, the async repository protocols the engine uses, and the pure storage rules
        /// (no database: neither GRDB nor postgres-nio).
        .target(
            name: "FeedModels",
            dependencies: ["FeedParsing"],
            swiftSettings: strictSettings
        ),
        /// When to look: a feed's publication model (its slots, learned from its dates) and the schedule, as pure
        /// functions of the model, the hints and the clock; the refresh and `podfresh replay-schedule` both call it.
        .target(
            name: "FeedScheduling",
            dependencies: ["FeedModels"],
            swiftSettings: strictSettings
        ),
        /// The SQLite store (GRDB) over FeedModels.
        .target(
            name: "FeedStorage",
            dependencies: [
                "FeedModels", "FeedParsing", "Measures",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        /// The PostgreSQL store for a fleet of workers (postgres-nio) over FeedModels; all of its SQL stays in this
        /// module, and it links neither FeedStorage nor GRDB.
        .target(
            name: "PostgresStorage",
            dependencies: [
                "FeedModels", "FeedParsing", "Measures",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Only for its ConnectionPoolError (the pool giving up on connecting), which PostgresNIO throws as is.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        /// Podping (issue #23): a JSON-RPC client of public Hive API nodes, block decoding (only the fields used), a
        /// reader that fails over between nodes and follows the chain, and whose notices are believed. Knows no
        /// store and no feed.
        .target(
            name: "Podping",
            dependencies: ["HTTPTransport", "Measures"],
            swiftSettings: strictSettings
        ),
        /// Sync with a gPodder-API server (issue #35): a client of the gpodder.net API v2 and of Nextcloud's gPodder
        /// Sync app, over HTTPTransport. Knows no store: the engine's `SubscriptionSync` decides what to pull and push.
        .target(
            name: "GPodderSync",
            dependencies: ["FeedModels", "HTTPTransport", "Measures"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "RefreshEngine",
            dependencies: [
                "FeedParsing", "FeedFetching", "FeedModels", "FeedScheduling", "EpisodeDownloads", "HTTPTransport",
                "Measures", "Podping", "GPodderSync",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strictSettings
        ),
        /// Episode media downloads: one file to `NAME.part`, resumed with Range + If-Range, fsync + rename; safe file
        /// names and free-space checks. Knows no store: it gets requests and returns results.
        .target(
            name: "EpisodeDownloads",
            dependencies: [
                "FeedParsing", "HTTPTransport", "Measures", "CFileAttributes",
                // Only for NIO's thread pool, which writes and fsyncs `.part` files off the cooperative pool.
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "ConsoleOutput",
            dependencies: [
                "RefreshEngine", "FeedFetching", "FeedParsing", "FeedModels", "FeedScheduling", "Measures",
                "EpisodeDownloads",
                "Podping", "GPodderSync", "RefreshMetrics", "HTTPTransport",
            ],
            swiftSettings: strictSettings
        ),
        /// Refresh events → Prometheus values (swift-prometheus), and the small NIO HTTP/1 server for `/metrics`.
        .target(
            name: "RefreshMetrics",
            dependencies: [
                "RefreshEngine", "Podping", "Measures",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "podfresh",
            dependencies: [
                "FeedParsing", "FeedFetching", "FeedModels", "FeedScheduling", "FeedStorage", "PostgresStorage",
                "RefreshEngine", "ConsoleOutput", "Measures",
                .target(name: "CJemalloc", condition: .when(platforms: [.linux])),
                .target(name: "AllocatorSettings", condition: .when(platforms: [.linux])),
                "RefreshMetrics", "EpisodeDownloads", "Podping", "HTTPTransport", "GPodderSync",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // ServiceGroup and graceful shutdown; its public API names UnixSignal (UnixSignals) and Logger (Logging).
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings,
            plugins: ["GitCommitStamp"]
        ),
        /// Names the git commit for `podfresh --version` before each build (GitCheckout.commit; nil from a tarball).
        .plugin(name: "GitCommitStamp", capability: .buildTool()),

        /// Parse throughput benchmark (Scripts/bench-parse.sh), not part of the product.
        .executableTarget(
            name: "podfresh-parse-bench",
            dependencies: ["FeedParsing"],
            path: "Scripts/ParseBench",
            swiftSettings: strictSettings
        ),

        /// Tagging benchmark (Scripts/bench-tags.sh): MediaTagger on one large file; not part of the product.
        .executableTarget(
            name: "podfresh-tag-bench",
            dependencies: ["EpisodeDownloads"],
            path: "Scripts/TagBench",
            swiftSettings: strictSettings
        ),

        /// The simulated internet for Scripts/netsim.sh, Scripts/bench-internet.sh and InternetTests: a DNS server
        /// with delays, NXDOMAIN and silence, and many HTTP/1.1, HTTPS and HTTP/2 hosts with delays and rate caps,
        /// counting what every client does. Not part of the product.
        .executableTarget(
            name: "podfresh-netsim",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Scripts/NetSim",
            swiftSettings: strictSettings
        ),

        // MARK: - Tests

        /// A real HTTP/1.1 server on 127.0.0.1 (port 0) for tests, able to inject faults, and a throwaway PostgreSQL
        /// cluster (`TestPostgres`).
        /// Sets how many tests run at once before Swift Testing starts (Tests/TestParallelism/TestParallelism.c says why).
        .target(name: "TestParallelism", path: "Tests/TestParallelism"),
        .target(
            name: "TestSupport",
            dependencies: [
                "Measures", "TestParallelism",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FeedParsingTests",
            dependencies: ["FeedParsing"],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: [
                "HTTPTransport", "Measures", "TestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FeedFetchingTests",
            dependencies: ["FeedFetching", "HTTPTransport", "Measures", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PodpingTests",
            dependencies: [
                "Podping", "HTTPTransport", "TestSupport",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        /// Sync (issue #35) against real gPodder-API servers on 127.0.0.1: gpodder-fastapi-router in a venv, and a
        /// Nextcloud gPodder Sync server written from its published API (Scripts/SyncServers).
        .testTarget(
            name: "SyncTests",
            dependencies: [
                "GPodderSync", "RefreshEngine", "FeedModels", "FeedStorage", "PostgresStorage", "HTTPTransport",
                "TestSupport", "FeedParsing",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FeedModelsTests",
            dependencies: ["FeedModels", "FeedParsing"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FeedSchedulingTests",
            dependencies: ["FeedScheduling", "FeedModels"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FeedStorageTests",
            dependencies: ["FeedModels", "FeedStorage", "FeedParsing", "TestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RefreshEngineTests",
            dependencies: [
                "RefreshEngine", "FeedModels", "FeedScheduling", "FeedStorage", "FeedFetching", "FeedParsing",
                "HTTPTransport", "Measures", "TestSupport", "Podping",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EpisodeDownloadsTests",
            dependencies: [
                "EpisodeDownloads", "HTTPTransport", "Measures", "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ConsoleOutputTests",
            dependencies: [
                "ConsoleOutput", "RefreshEngine", "FeedParsing", "FeedModels", "FeedScheduling", "FeedFetching",
                "HTTPTransport", "Measures", "Podping", "RefreshMetrics",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ReliabilityTests",
            dependencies: [
                "FeedParsing", "FeedFetching", "HTTPTransport", "FeedModels", "FeedStorage", "RefreshEngine",
                "ConsoleOutput", "Measures",
                "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PostgresStorageTests",
            dependencies: [
                "TestSupport", "PostgresStorage", "FeedModels", "FeedStorage", "FeedParsing", "FeedFetching",
                "RefreshEngine", "Podping", "HTTPTransport", "Measures",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // To read SQLite's own column list in the migration tests.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RefreshMetricsTests",
            dependencies: [
                "RefreshMetrics", "RefreshEngine", "FeedParsing", "FeedFetching", "EpisodeDownloads", "TestSupport",
                "Podping",
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "podfresh", "TestSupport", "FeedModels", "FeedStorage", "FeedParsing",
                .target(name: "CJemalloc", condition: .when(platforms: [.linux])),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        /// podfresh against the simulated internet (Scripts/netsim.sh, podfresh-netsim) in a network namespace; skipped
        /// unless root with a working `ip netns`. Depends on both executables so `swift test` builds them.
        .testTarget(
            name: "InternetTests",
            dependencies: ["podfresh", "podfresh-netsim", "TestSupport"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
