import FeedModels
import Foundation
import PostgresNIO
import TestSupport
import Testing

@testable import PostgresStorage

/// A statement cancelled with its task (a `watch` or refresh being stopped) ends as a cancellation, not as a database
/// error: stopping must not read as "the database failed" (exit 70).
struct CancellationTests {
    @Test func aStatementWhoseTaskIsCancelledThrowsCancellationNotAStoreError() async throws {
        let url = try await TestPostgres.shared().makeDatabase(prefix: "cancel")
        try await PostgresFeedStore.withStore(url: url) { store in
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await store.rows("SELECT pg_sleep(2)")
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test func onlyACancellationCountsAsOne() {
        #expect(PostgresFeedStore.isCancellation(CancellationError()))
        #expect(!PostgresFeedStore.isCancellation(StoreError(.unexpected(reason: "no"))))
    }
}
