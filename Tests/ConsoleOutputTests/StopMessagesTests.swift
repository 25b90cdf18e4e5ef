import ConsoleOutput
import Testing

/// What a signal makes `refresh`, `watch` and `download` say, pinned word for word.
struct StopMessagesTests {
    @Test func refreshSaysWhatHappensToTheFeedsInFlightAndHowManyWereLeft() {
        #expect(
            StopMessages.refreshStopping(signal: "SIGTERM")
                == "stopping on SIGTERM: no new fetches; feeds in flight finish and are stored (signal again to quit now)"
        )
        #expect(
            StopMessages.refreshStopping(signal: nil)
                == "stopping: no new fetches; feeds in flight finish and are stored (signal again to quit now)")
        #expect(
            StopMessages.refreshStopped(signal: "SIGINT", checked: 3, total: 10)
                == "stopped by SIGINT: 3 of 10 feeds checked (every fetch in flight finished and was stored), 7 not "
                + "checked; run `podfresh refresh` again to check them")
    }

    @Test func watchAndDownloadSayWhatHappensToTheWorkInFlight() {
        #expect(StopMessages.watchStopping == "stopping: letting feeds in flight finish (signal again to quit now)")
        #expect(
            StopMessages.downloadStopping
                == "stopping: downloads in flight stop and keep their .part to resume (signal again to quit now)")
    }
}
