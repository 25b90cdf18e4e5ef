import FeedModels
import PostgresStorage
import Testing

@Suite("A PostgreSQL URL, read as libpq reads it")
struct PostgresLocationTests {
    @Test
    func connectTimeoutIsReadInWholeSecondsAndAtLeastTwoAsLibpqDoes() throws {
        #expect(try PostgresLocation(url: "postgres://u@db/pf").connectTimeout == nil, "podfresh's own defaults")
        #expect(try PostgresLocation(url: "postgres://u@db/pf?connect_timeout=15").connectTimeout == 15)
        #expect(try PostgresLocation(url: "postgres://u@db/pf?sslmode=disable&connect_timeout=1").connectTimeout == 2)
    }

    @Test(arguments: ["0", "-3", "soon", "1.5", ""])
    func aConnectTimeoutThatIsNotAWholeNumberOfSecondsIsRefusedByName(value: String) {
        #expect(throws: StoreError(.postgresURL(.badConnectTimeout(value)))) {
            try PostgresLocation(url: "postgres://u@db/pf?connect_timeout=\(value)")
        }
    }

    @Test
    func aParameterPodfreshDoesNotKnowIsRefusedByName() {
        #expect(throws: StoreError(.postgresURL(.unknownParameter("pool_size")))) {
            try PostgresLocation(url: "postgres://u@db/pf?pool_size=3")
        }
    }
}
