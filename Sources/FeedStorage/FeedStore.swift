public import FeedModels
import FeedParsing
public import Foundation
import GRDB
import Measures

#if canImport(Glibc)
import Glibc
#endif

/// The podfresh database: one SQLite file behind GRDB, migrated on open.
///
/// Every method is one transaction; the store is safe to share between tasks and between processes (WAL, a busy
/// timeout). `synchronous = NORMAL` in WAL mode keeps the file consistent after a crash or `kill -9` at any moment
/// (a committed transaction survives a process crash; a power cut may lose only the last ones, never consistency).
///
/// It answers the async repository protocols of `FeedModels` (``SubscriptionRepository`` and the rest) through
/// threads of its own (``DatabaseThreads``): every read and write runs there, and the calling task waits without holding
/// a thread of Swift's cooperative pool or of Dispatch's global queues.
public struct FeedStore: SubscriptionRepository, EpisodeRepository, RefreshRunRepository,
    DownloadRecordStore, ExportableStore
{
    private let writer: any DatabaseWriter
    /// Where this store's blocking work runs (``DatabaseThreads``).
    private let threads = DatabaseThreads.forOneStore()
    /// True for a store opened with ``openForReading(path:upgradingOlderSchema:)``: every write is refused before it reaches SQLite.
    private var readsOnly = false

    /// Opens (creating if needed) the database at `path` for reading and writing, creating parent folders, and
    /// migrates it.
    ///
    /// An existing SQLite file that is not a podfresh database (it has tables, but not podfresh's) is refused and
    /// left byte-identical: it is inspected through a read-only connection before anything can write to it.
    ///
    /// - Throws: ``StoreError`` `.database` naming the path and what to do.
    public init(path: String) throws {
        try Self.checkPath(path)
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw StoreError(.cannotCreateFolder(path: path, reason: Self.reason(error)))
        }
        var configuration = Self.configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            // Look before writing: opening a pool switches the file to WAL, which would change another program's file.
            if case .foreign? = try Self.existingSchema(at: path) { throw Self.foreignDatabase(path) }
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Migrations.migrator.migrate(pool)
            writer = pool
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw Self.failure(error, path: path)
        } catch {
            throw StoreError(.cannotOpen(path: path, reason: ErrorWords.describe(error)))
        }
    }

    /// Opens the database at `path` for reading only: `list`, `episodes`, `status` and `export`.
    ///
    /// Nothing is ever created, migrated or written, and reads never wait for a writer in another process (WAL gives
    /// each read a snapshot). A missing file reads as an empty store. How the file is opened depends on who else has
    /// it open, which the `-wal`/`-shm` files beside it tell (WAL creates them with the first connection and removes
    /// them with the last):
    /// - they exist (a writer is at work, or left them): a read-only connection that shares them;
    /// - they do not, and the file and its folder are writable: a connection that only reads (every read runs with
    ///   `query_only`), so that SQLite removes the `-wal`/`-shm` it needs again when it closes — a read-only
    ///   connection would leave them behind, owned by whoever read;
    /// - they do not, and the file or its folder is read-only: the file is read as immutable. With no `-wal`, the
    ///   main file holds every committed transaction; no `-wal`/`-shm` is created.
    /// When a read-only connection cannot create what it needs (a read-only folder) and no `-wal` holds data, the file
    /// is read as immutable too.
    ///
    /// - Parameters:
    ///   - upgradingOlderSchema: When the file was written by an older podfresh and may be written, upgrade it once
    ///     (the one time a reader writes, and may wait for a writer) instead of refusing it.
    /// - Throws: ``StoreError`` `.database` when the file cannot be read, is not a podfresh database, or has an
    ///   older schema than this podfresh that is not upgraded (a writing command upgrades it).
    public static func openForReading(path: String, upgradingOlderSchema: Bool = false) throws -> FeedStore {
        try checkPath(path)
        var status = stat()
        if stat(path, &status) != 0 {
            let code = errno
            if code == ENOENT { return try .inMemory() }
            throw StoreError(.cannotReachPath(path: path, reason: String(cString: strerror(code))))
        }
        if (status.st_mode & S_IFMT) == S_IFDIR {
            throw StoreError(.folderNotFile(path: path))
        }
        if status.st_size == 0 { return try .inMemory() }
        do {
            var queue: DatabaseQueue
            var schema: Schema
            let companions = ["-wal", "-shm"].contains { FileManager.default.fileExists(atPath: path + $0) }
            let folder = (URL(fileURLWithPath: path).deletingLastPathComponent().path)
            do {
                if companions {
                    queue = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
                } else if access(path, R_OK | W_OK) == 0, access(folder, W_OK | X_OK) == 0 {
                    queue = try DatabaseQueue(path: path, configuration: configuration())
                } else {
                    queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration(readonly: true))
                }
                schema = try queue.read(Self.schema)
            } catch let error as DatabaseError where canReadImmutable(path, after: error) {
                queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration(readonly: true))
                schema = try queue.read(Self.schema)
            }
            switch schema {
            case .foreign: throw foreignDatabase(path)
            case .empty: return try .inMemory()
            case .podfresh(current: false):
                if upgradingOlderSchema, access(path, R_OK | W_OK) == 0, access(folder, W_OK | X_OK) == 0 {
                    return try FeedStore(path: path)
                }
                throw StoreError(.olderSchema(path: path))
            case .podfresh(current: true):
                return FeedStore(reader: queue)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw failure(error, path: path, writing: false)
        } catch {
            throw StoreError(.cannotRead(path: path, reason: ErrorWords.describe(error)))
        }
    }

    /// Opens the database at `path` as ``init(path:)`` does, on a thread of its own: opening migrates, and may wait
    /// for another process's writer, so no thread of the cooperative pool is held meanwhile.
    public static func open(path: String) async throws -> FeedStore {
        try await offThePool(on: DatabaseThreads.forOneStore()) { try FeedStore(path: path) }.get()
    }

    /// Opens the database at `path` for reading as ``openForReading(path:upgradingOlderSchema:)`` does, on a thread
    /// of its own (it may upgrade an older file, and wait for a writer to do so).
    public static func open(forReadingAt path: String, upgradingOlderSchema: Bool = false) async throws -> FeedStore {
        try await offThePool(on: DatabaseThreads.forOneStore()) {
            try openForReading(path: path, upgradingOlderSchema: upgradingOlderSchema)
        }.get()
    }

    /// Runs blocking `work` on one of `threads` and returns its result. The caller resumes only after `work`, and everything
    /// it captured, was released, and the result is handed over rather than copied: a store its caller lets go of
    /// closes its file at once (SQLite then removes the `-wal`/`-shm` files), as a synchronous call would.
    private static func offThePool<T: Sendable>(
        on threads: BlockingThreads, _ work: @escaping @Sendable () throws -> T
    ) async -> Result<T, any Error> {
        let box = Work(work)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            threads.run {
                box.run()
                continuation.resume()
            }
        }
        return box.take()
    }

    /// Blocking work handed to ``DatabaseThreads``: run once, dropped before its caller resumes, its result taken by the caller.
    ///
    /// `@unchecked Sendable`: `work` and `result` are written by the one thread that runs it, before it resumes
    /// the caller, and `result` is read once by the caller after that resumption, which orders the two.
    private final class Work<T>: @unchecked Sendable {
        private var work: (@Sendable () throws -> T)?
        private var result: Result<T, any Error>?

        init(_ work: @escaping @Sendable () throws -> T) { self.work = work }

        func run() {
            guard let work else { preconditionFailure("blocking work run twice") }
            self.work = nil
            result = Result { try work() }
        }

        func take() -> Result<T, any Error> {
            guard let result else { preconditionFailure("blocking work taken before it ran") }
            self.result = nil
            return result
        }
    }

    /// A private in-memory database, for tests.
    public static func inMemory() throws -> FeedStore {
        try FeedStore(writer: DatabaseQueue())
    }

    private init(writer: any DatabaseWriter) throws {
        try Migrations.migrator.migrate(writer)
        self.writer = writer
    }

    /// A store that only reads (``openForReading(path:upgradingOlderSchema:)``): its write methods throw.
    private init(reader: DatabaseQueue) {
        self.writer = reader
        self.readsOnly = true
    }

    private static func configuration(readonly: Bool = false) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(30)
        configuration.foreignKeysEnabled = true
        return configuration
    }

    private static func checkPath(_ path: String) throws {
        guard !path.isEmpty else {
            throw StoreError(.emptyPath)
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? POSIXError {
            return String(cString: strerror(underlying.code.rawValue))
        }
        return error.localizedDescription
    }

    // MARK: - Whose file is it?

    /// What an SQLite file holds.
    enum Schema: Equatable {
        /// No tables at all: a new file podfresh may set up.
        case empty
        /// podfresh's tables; `current` when every migration this podfresh knows was applied.
        case podfresh(current: Bool)
        /// Tables of another program.
        case foreign
    }

    /// Tells podfresh's databases from other programs' by their tables, reading only.
    static func schema(_ db: Database) throws -> Schema {
        let tables = Set(try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        if tables.isEmpty { return .empty }
        guard tables.isSuperset(of: ["grdb_migrations", "subscription", "episode", "refreshRun"]),
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = 'v1')") == true
        else { return .foreign }
        return .podfresh(current: try Migrations.migrator.hasCompletedMigrations(db))
    }

    /// What the existing file at `path` holds, looked at through a read-only connection only; nil when there is no
    /// file or it is empty.
    ///
    /// Asked before anything could write to or beside the file: opening a pool switches the file to WAL (which would
    /// change another program's file), and the run lock creates `<database>.lock` beside it.
    static func existingSchema(at path: String) throws -> Schema? {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 else {
            return nil
        }
        let probe = try DatabaseQueue(path: path, configuration: configuration(readonly: true))
        let schema = try probe.read(Self.schema)
        try probe.close()
        return schema
    }

    static func foreignDatabase(_ path: String) -> StoreError {
        StoreError(.notPodfreshDatabase(path: path))
    }

    /// True when a read-only open failed only because SQLite could not create the `-wal`/`-shm` files (a read-only
    /// folder) and no `-wal` file exists, so the main file alone holds every committed transaction.
    private static func canReadImmutable(_ path: String, after error: DatabaseError) -> Bool {
        guard [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) else { return false }
        let size = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int
        return size == nil || size == 0
    }

    /// An SQLite URI (`file:…?immutable=1`) for `path`.
    private static func immutableURI(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// The store error for an SQLite error on the database at `path`: its result code and its own message.
    static func failure(_ error: DatabaseError, path: String, writing: Bool = true) -> StoreError {
        StoreError(.sqlite(path: path, code: error.resultCode.rawValue, message: error.message, writing: writing))
    }

    // MARK: - Access off the cooperative pool

    /// Runs `body` in a write transaction; the calling task waits without holding a thread of the cooperative pool
    /// (SQLite may wait up to the busy timeout for another process). Once started, the write always completes, even
    /// when the calling task is cancelled: a stopped refresh still commits what it started.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try refuseWritesWhenReading()
        let writer = self.writer
        return try value(await Self.offThePool(on: threads) { try writer.write(body) })
    }

    /// Runs `body` in a read transaction, the calling task waiting without holding a thread of the cooperative pool.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let writer = self.writer
        return try value(await Self.offThePool(on: threads) { try writer.read(body) })
    }

    private func refuseWritesWhenReading() throws {
        guard !readsOnly else {
            throw StoreError(.openedForReading(path: writer.path))
        }
    }

    /// `result`'s value, a database error turned into a ``StoreError`` that names the file.
    private func value<T>(_ result: Result<T, any Error>) throws -> T {
        do {
            return try result.get()
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError {
            throw Self.failure(error, path: writer.path)
        }
    }

    // MARK: - Subscriptions

    /// Adds a feed whose first fetch announces only its newest episode.
    public func addSubscription(url: URL, title: String?, at date: Date) async throws -> Subscription {
        try await addSubscription(url: url, title: title, at: date, backlog: nil)
    }

    public func addSubscription(url: URL, title: String?, at date: Date, backlog: Int?) async throws -> Subscription {
        let url = FeedURL.normalized(url)
        return try await write { db in
            if try Row.fetchOne(db, sql: "SELECT id FROM subscription WHERE url = ?", arguments: [url.absoluteString])
                != nil
            {
                throw StoreError(.alreadySubscribed(url: url, subscriptionID: nil))
            }
            try db.execute(
                sql: "INSERT INTO subscription (url, title, addedAt, backlog) VALUES (?, ?, ?, ?)",
                arguments: [url.absoluteString, title, date.timeIntervalSince1970, backlog])
            let added = Subscription(id: db.lastInsertedRowID, url: url, title: title, addedAt: date, backlog: backlog)
            guard let settings = try Self.newFeedSettings(db: db) else { return added }
            return try Self.applyDownloadSettings(settings.changeForNewFeed(at: date), to: added, db: db)
        }
    }

    public func moveSubscription(id: Int64, to url: URL) async throws -> Subscription {
        let url = FeedURL.normalized(url)
        return try await write { db in
            let current = try Self.existingSubscription(id: id, db: db)
            guard url != current.url else { return current }
            try Self.refuseTakenURL(url, except: id, db: db)
            try db.execute(
                sql: """
                    UPDATE subscription SET url = ?, movedFrom = ?, refusedMoveTarget = NULL, etag = NULL,
                      lastModified = NULL, nextCheckAt = NULL, nextCheckReason = NULL
                    WHERE id = ?
                    """,
                arguments: [url.absoluteString, current.url.absoluteString, id])
            return try Self.existingSubscription(id: id, db: db)
        }
    }

    public func undoMove(id: Int64) async throws -> Subscription {
        try await write { db in
            let current = try Self.existingSubscription(id: id, db: db)
            guard let previous = current.movedFrom else {
                throw StoreError(.noMoveToUndo(subscriptionID: id))
            }
            try Self.refuseTakenURL(previous, except: id, db: db)
            try db.execute(
                sql: """
                    UPDATE subscription SET url = ?, movedFrom = NULL, refusedMoveTarget = ?, etag = NULL,
                      lastModified = NULL, nextCheckAt = NULL, nextCheckReason = NULL
                    WHERE id = ?
                    """,
                arguments: [previous.absoluteString, current.url.absoluteString, id])
            return try Self.existingSubscription(id: id, db: db)
        }
    }

    static func existingSubscription(id: Int64, db: Database) throws -> Subscription {
        guard
            let subscription = try Row.fetchOne(db, sql: "SELECT * FROM subscription WHERE id = ?", arguments: [id])
                .flatMap(Self.subscription(from:))
        else {
            throw StoreError(.noSubscription(id: id))
        }
        return subscription
    }

    private static func refuseTakenURL(_ url: URL, except id: Int64, db: Database) throws {
        if let other = try Int64.fetchOne(
            db, sql: "SELECT id FROM subscription WHERE url = ? AND id <> ?", arguments: [url.absoluteString, id])
        {
            throw StoreError(.alreadySubscribed(url: url, subscriptionID: other))
        }
    }

    @discardableResult
    public func removeSubscription(id: Int64) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM subscription WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    public func subscriptions() async throws -> [Subscription] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM subscription ORDER BY id").compactMap(Self.subscription(from:))
        }
    }

    public func subscription(id: Int64) async throws -> Subscription? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM subscription WHERE id = ?", arguments: [id]).flatMap(
                Self.subscription(from:))
        }
    }

    public func subscription(url: URL) async throws -> Subscription? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM subscription WHERE url = ?",
                arguments: [FeedURL.normalizedString(url.absoluteString)]
            )
            .flatMap(Self.subscription(from:))
        }
    }

    public func dueSubscriptions(at date: Date) async throws -> [Subscription] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT * FROM subscription WHERE isGone = 0 AND (nextCheckAt IS NULL OR nextCheckAt <= ?) ORDER BY id",
                arguments: [date.timeIntervalSince1970]
            ).compactMap(Self.subscription(from:))
        }
    }

    static func subscription(from row: Row) -> Subscription? {
        guard let url = URL(string: row["url"]) else { return nil }
        var subscription = Subscription(
            id: row["id"], url: url, title: row["title"],
            link: (row["link"] as String?).flatMap(URL.init(string:)),
            image: (row["image"] as String?).flatMap(URL.init(string:)), description: row["description"],
            author: row["author"], language: row["language"], addedAt: Date(timeIntervalSince1970: row["addedAt"]),
            etag: row["etag"], lastModified: row["lastModified"],
            lastCheckedAt: date(row["lastCheckedAt"]), lastSuccessAt: date(row["lastSuccessAt"]),
            lastUnconditionalAt: date(row["lastUnconditionalAt"]), lastStatus: row["lastStatus"],
            failureCount: row["failureCount"], lastErrorKind: row["lastErrorKind"], lastError: row["lastError"],
            isGone: row["isGone"], isComplete: row["isComplete"], nextCheckAt: date(row["nextCheckAt"]),
            nextCheckReason: ScheduleReason(storedText: row["nextCheckReason"] as String?),
            movedFrom: (row["movedFrom"] as String?).flatMap(URL.init(string:)), lastBodyBytes: row["lastBodyBytes"],
            ttlMinutes: row["ttlMinutes"], syndicationUpdatePeriod: row["syndicationUpdatePeriod"],
            syndicationUpdateFrequency: row["syndicationUpdateFrequency"],
            podcastUpdateFrequency: row["podcastUpdateFrequency"],
            backlog: row["backlog"],
            refusedMoveTarget: (row["refusedMoveTarget"] as String?).flatMap(URL.init(string:)),
            downloadsEnabled: row["downloadsEnabled"] ?? false, keepNewest: row["keepNewest"],
            downloadDirectory: row["downloadDirectory"], fileNameTemplate: row["fileNameTemplate"],
            deletePlayed: row["deletePlayed"] ?? false,
            downloadFilter: DownloadFilter(storedText: row["downloadFilter"] as String?),
            extras: row["extras"] ?? false
        )
        subscription.lastBodyDigest = row["lastBodyDigest"]
        subscription.publicationModel = row["publicationModel"]
        subscription.lastWholeReadAt = date(row["lastWholeReadAt"])
        subscription.endedEarly = row["endedEarly"] ?? false
        subscription.downloadsSince = date(row["downloadsSince"])
        subscription.downloadBacklog = row["downloadBacklog"]
        subscription.tagMode = (row["tagMode"] as String?).flatMap(TagMode.init(rawValue:)) ?? .off
        return subscription
    }

    static func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }

    // MARK: - Applying a check

    /// Applies one feed check in a single transaction (see ``EpisodeRepository/apply(_:)``). The episode
    /// rows are computed before the transaction, so the single writer only runs SQL; once queued, the merge always
    /// completes, so a cancelled refresh still commits in-flight merges.
    public func apply(_ check: FeedCheck) async throws -> MergeSummary {
        let columns = Self.columns(of: check)
        return try await write { db in try self.applyBody(check, columns: columns, db: db) }
    }

    /// The episode rows of a fetched feed, computed before the write transaction.
    private static func columns(of check: FeedCheck) -> [EpisodeColumns] {
        guard case .fetched(let feed, _, _, _) = check.result else { return [] }
        // By index: mapping the episodes would copy each one (every field retained and released) before reading it.
        return feed.episodes.indices.map { EpisodeColumns(feed.episodes[$0]) }
    }

    private func applyBody(_ check: FeedCheck, columns: [EpisodeColumns], db: Database) throws -> MergeSummary {
        guard
            let current = try Row.fetchOne(
                db, sql: "SELECT * FROM subscription WHERE id = ?", arguments: [check.subscriptionID]
            )
            .flatMap(Self.subscription(from:))
        else {
            throw StoreError(.noSubscription(id: check.subscriptionID))
        }
        var summary = MergeSummary()
        var state = CheckStatePlan(check)
        if case .fetched(let feed, _, _, _) = check.result {
            summary = try merge(
                feed, columns: columns, into: current, checkedAt: check.checkedAt, runID: check.runID,
                announceLimit: check.announceLimit, readShort: check.bodyRead == .short, db: db)
            try Self.markSeen(check.seenEarly, subscriptionID: current.id, checkedAt: check.checkedAt, db: db)
        }
        try Self.applyPingsDuringCheck(to: &state, subscriptionID: current.id, db: db)
        try Self.write(state, subscriptionID: current.id, db: db)
        if let target = MergePlan.moveTarget(of: check, from: current) {
            if let other = try Row.fetchOne(
                db, sql: "SELECT id, title FROM subscription WHERE url = ? AND id <> ?",
                arguments: [target.absoluteString, current.id])
            {
                summary.moveRefused = MergePlan.refusedMove(
                    to: target, otherID: other["id"], otherTitle: other["title"])
            } else {
                try db.execute(
                    sql: "UPDATE subscription SET url = ?, movedFrom = ? WHERE id = ?",
                    arguments: [target.absoluteString, current.url.absoluteString, current.id])
                summary.movedTo = target
            }
        }
        return summary
    }

    /// Writes a check's ``CheckStatePlan`` to the subscription's row (and what a fetched body says of the feed).
    private static func write(_ state: CheckStatePlan, subscriptionID: Int64, db: Database) throws {
        try db.execute(
            sql: """
                UPDATE subscription SET lastCheckedAt = ?, lastSuccessAt = COALESCE(?, lastSuccessAt),
                  lastUnconditionalAt = COALESCE(?, lastUnconditionalAt), lastStatus = ?,
                  failureCount = CASE ? WHEN 'reset' THEN 0 WHEN 'increment' THEN failureCount + 1 ELSE failureCount END,
                  lastErrorKind = ?, lastError = ?, isGone = COALESCE(?, isGone), nextCheckAt = ?, nextCheckReason = ?,
                  lastWholeReadAt = COALESCE(?, lastWholeReadAt), lastBodyDigest = COALESCE(?, lastBodyDigest),
                  publicationModel = COALESCE(?, publicationModel),
                  endedEarly = COALESCE(?, endedEarly)
                WHERE id = ?
                """,
            arguments: [
                state.lastCheckedAt.timeIntervalSince1970, state.lastSuccessAt?.timeIntervalSince1970,
                state.lastUnconditionalAt?.timeIntervalSince1970, state.lastStatus, state.failureCount.rawValue,
                state.lastErrorKind, state.lastError, state.isGone, state.nextCheckAt?.timeIntervalSince1970,
                state.nextCheckReason?.storedText, state.lastWholeReadAt?.timeIntervalSince1970, state.lastBodyDigest,
                state.publicationModel, state.endedEarly, subscriptionID,
            ])
        guard let feed = state.fetched else { return }
        try db.execute(
            sql: """
                UPDATE subscription SET
                  title = COALESCE(?, title), link = COALESCE(?, link), image = COALESCE(?, image),
                  description = COALESCE(?, description), author = COALESCE(?, author),
                  language = COALESCE(?, language), etag = ?, lastModified = ?, isComplete = ?,
                  lastBodyBytes = COALESCE(?, lastBodyBytes), ttlMinutes = ?, syndicationUpdatePeriod = ?,
                  syndicationUpdateFrequency = ?, podcastUpdateFrequency = ?
                WHERE id = ?
                """,
            arguments: [
                feed.title, feed.link?.absoluteString, feed.image?.absoluteString, feed.description, feed.author,
                feed.language, feed.etag, feed.lastModified, feed.isComplete, feed.bodyBytes, feed.ttlMinutes,
                feed.syndicationUpdatePeriod, feed.syndicationUpdateFrequency, feed.podcastUpdateFrequency,
                subscriptionID,
            ])
        if feed.podpingWasRead { try writePodpingDeclaration(feed.podping, subscriptionID: subscriptionID, db: db) }
    }

    /// Merges a feed's episodes by its ``MergePlan``: new ones inserted, changed ones updated, none deleted.
    private func merge(
        _ feed: ParsedFeed, columns: [EpisodeColumns], into subscription: Subscription, checkedAt: Date,
        runID: Int64?, announceLimit: Int?, readShort: Bool, db: Database
    ) throws -> MergeSummary {
        let stored =
            readShort
            ? try Self.storedFingerprints(of: feed, subscriptionID: subscription.id, db: db)
            : try Self.storedFingerprints(subscriptionID: subscription.id, db: db)
        let plan = MergePlan(
            feed: feed, fingerprints: columns.map(\.fingerprint), stored: stored, announceLimit: announceLimit)
        // Read before the update overwrites them.
        let alreadyLive = try Self.storedLive(plan.updatedLiveKeys(of: feed), subscriptionID: subscription.id, db: db)
        try Self.carryOut(
            plan, keys: { feed.episodes[$0].id }, columns: columns, subscriptionID: subscription.id,
            checkedAt: checkedAt, runID: runID, db: db)
        return plan.summary(
            of: feed, subscriptionID: subscription.id, checkedAt: checkedAt, runID: runID, alreadyLive: alreadyLive)
    }

    /// Which of `keys` the store holds as a live item whose status is live.
    static func storedLive(_ keys: [String], subscriptionID: Int64, db: Database) throws -> Set<String> {
        guard !keys.isEmpty else { return [] }
        let read = try db.cachedStatement(sql: "SELECT liveItem FROM episode WHERE subscriptionId = ? AND key = ?")
        var live = Set<String>()
        for key in keys
        where EpisodeFields.isLive(
            storedJSON: try String?.fetchOne(read, arguments: [subscriptionID, key]) ?? nil)
        {
            live.insert(key)
        }
        return live
    }

    /// Marks episodes seen, by key: a merge's unchanged ones, and those an early merge found unchanged
    /// (``FeedCheck/seenEarly``).
    static func markSeen(_ keys: [String], subscriptionID: Int64, checkedAt: Date, db: Database) throws {
        guard !keys.isEmpty else { return }
        let touch = try db.cachedStatement(
            sql: "UPDATE episode SET lastSeenAt = ? WHERE subscriptionId = ? AND key = ?")
        for key in keys {
            try touch.execute(arguments: [checkedAt.timeIntervalSince1970, subscriptionID, key])
        }
    }

    /// Carries out a merge plan: its inserts, updates and episodes marked seen, each row by its index (`key` gives its
    /// identity key, `columns` its values).
    static func carryOut(
        _ plan: MergePlan, keys key: (Int) -> String, columns: [EpisodeColumns], subscriptionID: Int64,
        checkedAt: Date, runID: Int64?, db: Database
    ) throws {
        try markSeen(plan.unchanged.map(key), subscriptionID: subscriptionID, checkedAt: checkedAt, db: db)
        let subscriptionID = subscriptionID.databaseValue
        let seen = checkedAt.timeIntervalSince1970.databaseValue
        if !plan.inserts.isEmpty {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO episode (subscriptionId, key, fingerprint, guid, guidIsPermaLink, title, link, description, summary,
                      published, duration, enclosures, episodeNumber, season, episodeType, explicit, image, transcripts, chapters,
                      persons, alternateEnclosures, liveItem, firstSeenAt, lastSeenAt, firstSeenRunId)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for entry in plan.inserts {
                let row = columns[entry.index]
                var arguments: StatementArguments = [
                    subscriptionID, key(entry.index).databaseValue, row.fingerprint.databaseValue,
                ]
                arguments += row.arguments
                arguments += [seen, seen, MergePlan.firstSeenRun(of: entry, runID: runID).databaseValue]
                try insert.execute(arguments: arguments)
            }
        }
        if !plan.updates.isEmpty {
            let update = try db.cachedStatement(
                sql: """
                    UPDATE episode SET fingerprint = ?, guid = ?, guidIsPermaLink = ?, title = ?, link = ?, description = ?,
                      summary = ?, published = ?, duration = ?, enclosures = ?, episodeNumber = ?, season = ?, episodeType = ?,
                      explicit = ?, image = ?, transcripts = ?, chapters = ?, persons = ?, alternateEnclosures = ?, liveItem = ?,
                      lastSeenAt = ?
                    WHERE subscriptionId = ? AND key = ?
                    """)
            for index in plan.updates {
                let row = columns[index]
                var arguments: StatementArguments = [row.fingerprint.databaseValue]
                arguments += row.arguments
                arguments += [seen, subscriptionID, key(index).databaseValue]
                try update.execute(arguments: arguments)
            }
        }
    }

    /// Every stored episode of a feed: identity key → fingerprint.
    private static func storedFingerprints(subscriptionID: Int64, db: Database) throws -> [String: String] {
        var stored: [String: String] = [:]
        let rows = try Row.fetchCursor(
            db, sql: "SELECT key, fingerprint FROM episode WHERE subscriptionId = ?", arguments: [subscriptionID])
        while let row = try rows.next() { stored[row["key"]] = row["fingerprint"] }
        return stored
    }

    /// The stored fingerprints of the episodes `feed` lists, looked up by key: what a body read short needs, since
    /// it lists a few leading episodes of a feed that may have stored thousands, and reading every stored row (pages
    /// of descriptions) would cost more than the rest of its check.
    private static func storedFingerprints(
        of feed: ParsedFeed, subscriptionID: Int64, db: Database
    ) throws -> [String: String] {
        var keys: [String] = []
        var seen = Set<String>()
        for index in feed.episodes.indices where seen.insert(feed.episodes[index].id).inserted {
            keys.append(feed.episodes[index].id)
        }
        return try storedFingerprints(of: keys, subscriptionID: subscriptionID, db: db)
    }

    /// The stored fingerprints of those of `keys` that a feed has stored, asked a few hundred keys at a time (well
    /// under SQLite's limit on bound parameters).
    static func storedFingerprints(
        of keys: [String], subscriptionID: Int64, db: Database
    ) throws -> [String: String] {
        var stored: [String: String] = [:]
        for start in stride(from: 0, to: keys.count, by: 500) {
            let batch = keys[start..<min(start + 500, keys.count)]
            var arguments: StatementArguments = [subscriptionID]
            arguments += StatementArguments(batch)
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            let rows = try Row.fetchCursor(
                db, sql: "SELECT key, fingerprint FROM episode WHERE subscriptionId = ? AND key IN (\(marks))",
                arguments: arguments)
            while let row = try rows.next() { stored[row["key"]] = row["fingerprint"] }
        }
        return stored
    }
}
