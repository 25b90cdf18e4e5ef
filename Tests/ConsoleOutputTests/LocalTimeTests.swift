import ConsoleOutput
import Foundation
import Testing

/// Times in text output are in the local time zone, with its offset; JSON stays UTC.
struct LocalTimeTests {
    let date = Date(timeIntervalSince1970: 1_730_000_000)  // 2024-10-27T03:33:20Z

    @Test func aZoneAheadOfUTCGivesItsOffsetAndItsDay() throws {
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        #expect(LocalTime.string(date, zone: kolkata) == "2024-10-27T09:03:20+05:30")
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        #expect(LocalTime.string(date, zone: newYork) == "2024-10-26T23:33:20-04:00")
        #expect(LocalTime.day(date, zone: newYork) == "2024-10-26", "the local calendar day")
    }

    @Test func utcIsWrittenWithZ() throws {
        #expect(LocalTime.string(date, zone: try #require(TimeZone(identifier: "UTC"))) == "2024-10-27T03:33:20Z")
    }
}
