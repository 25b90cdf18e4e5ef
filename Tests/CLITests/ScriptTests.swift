import Foundation
import Testing

/// The shell scripts in `Scripts/` that users run, tested as users run them.
struct ScriptTests {
    @Test(.timeLimit(.minutes(1)))
    func installCronIsIdempotentAndKeepsOtherJobs() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Podfresh.packageRoot.appendingPathComponent("Scripts/test-install-cron.sh").path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.contains(" passed, 0 failed"), "\(output)")
    }
}
