import Foundation
import Synchronization

/// mutagen, an independent reader of ID3 and MP4 tags, run through `Scripts/read-tags.py` in the venv
/// `Scripts/tag-test-venv.sh` makes (from PyPI, once per test process): what a test reads back with it was not read by
/// podfresh's own parser.
public enum IndependentTagReader {
    /// What mutagen read, and the SHA-256 of the audio payload (after the ID3v2 tags; the `mdat` contents).
    public struct Reading: Sendable {
        /// The whole JSON object the script printed.
        public let json: [String: any Sendable]
        public var tags: [String: any Sendable] { json["tags"] as? [String: any Sendable] ?? [:] }
        public var payloadSHA256: String? { json["payload_sha256"] as? String }

        /// A text tag's first value (`TIT2`, `©nam`, …).
        public func text(_ key: String) -> String? {
            if let list = tags[key] as? [any Sendable] { return list.first.map { "\($0)" } }
            return tags[key] as? String
        }
    }

    private static let venvReady = Mutex<Task<Bool, Never>?>(nil)

    /// The venv's python.
    public static var python: String {
        SyncTestServer.packageRoot.appendingPathComponent(".build-tag-venv/bin/python").path
    }

    /// Whether mutagen can be had (its venv made, from PyPI, when missing).
    public static func available() async -> Bool {
        let task = venvReady.withLock { task in
            if let task { return task }
            let made = Task<Bool, Never> {
                guard
                    let outcome = try? await runProcess(
                        "/bin/bash",
                        arguments: [SyncTestServer.packageRoot.appendingPathComponent("Scripts/tag-test-venv.sh").path],
                        within: .seconds(300))
                else { return false }
                return outcome.status == .exited(0)
            }
            task = made
            return made
        }
        return await task.value
    }

    /// Reads `file` with mutagen; nil when mutagen refused it (the JSON then says why in `error`).
    public static func read(_ file: String) async throws -> Reading {
        let outcome = try await runProcess(
            python,
            arguments: [SyncTestServer.packageRoot.appendingPathComponent("Scripts/read-tags.py").path, file],
            within: .seconds(60))
        let object = try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8))
        guard let json = object as? [String: Any] else {
            throw ReadFailure(output: outcome.standardOutput + outcome.standardError)
        }
        return Reading(json: json.mapValues { Self.sendable($0) })
    }

    struct ReadFailure: Error, CustomStringConvertible {
        var output: String
        var description: String { "mutagen could not read the file: \(output)" }
    }

    private static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let dictionary as [String: Any]: dictionary.mapValues { sendable($0) }
        case let array as [Any]: array.map { sendable($0) }
        case let string as String: string
        case let number as NSNumber: number.doubleValue
        default: "\(value)"
        }
    }
}
