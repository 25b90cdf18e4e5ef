import Foundation
import TestSupport
import Testing

/// The shell scripts in `Scripts/` that users run, tested as users run them.
struct ScriptTests {
    @Test(.timeLimit(.minutes(1)))
    func installCronIsIdempotentAndKeepsOtherJobs() async throws {
        let script = Podfresh.packageRoot.appendingPathComponent("Scripts/test-install-cron.sh").path
        let run = try await runProcess("/bin/bash", arguments: [script], within: .seconds(50))
        let output = run.standardOutput + run.standardError
        #expect(run.status == .exited(0), "\(output)")
        #expect(run.standardOutput.contains(" passed, 0 failed"), "\(output)")
    }
}
