public import FeedModels
public import FeedParsing
import Foundation
import Measures
import RefreshEngine

/// Every word podfresh says about syncing with a gPodder-API server, and the keys of its JSON Lines events. No
/// credential ever reaches these: events carry the server's address without user information, counts and URLs.
public enum SyncText {
    /// The human line for an event, and whether it is an error (standard error); nil: human styles say nothing.
    static func line(_ event: SyncEvent) -> (text: String, isError: Bool)? {
        switch event {
        case .started:
            return nil
        case .pulled(let pulled):
            guard !pulled.added.isEmpty || !pulled.removed.isEmpty else { return nil }
            var parts: [String] = []
            if !pulled.added.isEmpty { parts.append("subscribed to \(count(pulled.added.count, "feed"))") }
            if !pulled.removed.isEmpty {
                parts.append("unsubscribed from \(pulled.removed.count) (their downloaded files stay)")
            }
            return ("sync: " + parts.joined(separator: ", ") + " as the server says", false)
        case .pushed(let pushed):
            var parts = ["\(pushed.added) added", "\(pushed.removed) removed"]
            if pushed.rewritten > 0 { parts.append("\(pushed.rewritten) renamed as the server spells them") }
            return ("sync: sent the server " + parts.joined(separator: ", "), false)
        case .actionsPulled(let summary):
            guard summary.applied > 0 || summary.unmatched > 0 || summary.waiting > 0 else { return nil }
            var parts = ["\(count(summary.applied, "episode")) changed"]
            if summary.played > 0 { parts.append("\(summary.played) played to the end") }
            if summary.waiting > 0 { parts.append("\(summary.waiting) kept until their episodes are fetched") }
            if summary.unmatched > 0 { parts.append("\(summary.unmatched) for feeds not here (ignored)") }
            return (
                "sync: \(count(summary.received, "episode action")) from the server: " + parts.joined(separator: ", "),
                false
            )
        case .actionsPushed(let pushed):
            var text = "sync: sent the server \(count(pushed.pushed, "download"))"
            if pushed.withheld > 0 {
                text +=
                    " (\(pushed.withheld) withheld: the server keeps one action per episode, and another device's is newer news)"
            }
            return (text, false)
        case .failed(let failure):
            return ("sync: " + TerminalText.sanitize(failureLine(failure)), true)
        case .storeFailed(let error):
            return (
                "sync: the store failed: \(TerminalText.sanitize(StoreErrorText.line(error))); trying again at the next sync",
                true
            )
        case .leaseHeldElsewhere(let worker, let until):
            return (
                "sync: worker \(TerminalText.sanitize(worker)) syncs for the fleet (lease until \(LocalTime.string(until)))",
                false
            )
        }
    }

    /// The JSON Lines object for an event.
    static func json(_ event: SyncEvent) -> [(String, JSONValue)] {
        switch event {
        case .started(let server, let first):
            return [("event", .string("sync_started")), ("server", .string(server)), ("first", .bool(first))]
        case .pulled(let pulled):
            return [
                ("event", .string("sync_pulled")), ("added", .int(pulled.added.count)),
                ("removed", .int(pulled.removed.count)),
                ("added_urls", .array(pulled.added.map { .string($0.absoluteString) })),
                ("removed_urls", .array(pulled.removed.map { .string($0.absoluteString) })),
            ]
        case .pushed(let pushed):
            return [
                ("event", .string("sync_pushed")), ("added", .int(pushed.added)), ("removed", .int(pushed.removed)),
                ("rewritten", .int(pushed.rewritten)),
            ]
        case .actionsPulled(let summary):
            return [
                ("event", .string("sync_actions_pulled")), ("received", .int(summary.received)),
                ("applied", .int(summary.applied)), ("played", .int(summary.played)),
                ("unmatched", .int(summary.unmatched)), ("waiting", .int(summary.waiting)),
                ("unchanged", .int(summary.unchanged)),
            ]
        case .actionsPushed(let pushed):
            return [
                ("event", .string("sync_actions_pushed")), ("pushed", .int(pushed.pushed)),
                ("withheld", .int(pushed.withheld)),
            ]
        case .failed(let failure):
            return [
                ("event", .string("sync_failed")), ("server", .string(failure.server)),
                ("step", .string(failure.step.rawValue)), ("kind", .string(failure.kind.rawValue)),
                ("status", .int(failure.status)), ("message", .string(failureLine(failure))),
            ]
        case .storeFailed(let error):
            return [
                ("event", .string("sync_failed")), ("step", .string("store")), ("kind", .string("store")),
                ("message", .string("the store failed: " + StoreErrorText.line(error))),
            ]
        case .leaseHeldElsewhere(let worker, let until):
            return [("event", .string("sync_lease")), ("held_by", .string(worker)), ("until", .date(until))]
        }
    }

    /// A failed sync in one line, naming the server, the step and the cause, and what to do; at set-up, nothing was
    /// set up.
    public static func failureLine(_ failure: SyncFailure, settingUp: Bool = false) -> String {
        let server = failure.server
        let step: String
        switch failure.step {
        case .register: step = "setting up this device with"
        case .pull: step = "reading the subscriptions from"
        case .push: step = "sending the subscriptions to"
        case .pullActions: step = "reading the episode actions from"
        case .pushActions: step = "sending the episode actions to"
        case .store: step = "recording the sync with"
        }
        let cause: String
        switch failure.kind {
        case .unreachable:
            cause = "the server cannot be reached (\(failure.detail ?? "no connection"))"
        case .timedOut:
            cause = "the server did not answer in time" + (failure.detail.map { " (\($0))" } ?? "")
        case .unauthorized:
            cause =
                "the server refused the user name or password (HTTP 401); run `podfresh sync setup` again with the right password (for Nextcloud, an app password)"
        case .forbidden:
            cause = "the server does not allow this account to do that (HTTP 403); check the user name and the account"
        case .notFound:
            cause =
                "there is no gPodder API at this address (HTTP 404); check --server and --api (Nextcloud needs its gPodder Sync app)"
        case .httpStatus:
            let status = failure.status ?? 0
            cause =
                "the server answered HTTP \(status)"
                + (status >= 500 ? " (a fault on the server; the next sync tries again)" : "")
        case .redirected:
            cause =
                "the server redirects to \(failure.detail ?? "another address"); give that address as --server (the password is never sent on)"
        case .malformed:
            cause = "the server's answer is not the gPodder API's JSON (\(failure.detail ?? "unreadable"))"
        case .store:
            cause = "the store failed (\(failure.detail ?? "unknown"))"
        case .noPassword:
            cause =
                "its password is missing (\(failure.detail ?? "not kept")); run `podfresh sync setup` again"
        }
        if settingUp { return "\(step) \(server) failed: \(cause). Sync is not set up" }
        return
            "\(step) \(server) failed: \(cause). Nothing was lost: the next sync tries again, and refreshes go on with the local subscriptions"
    }

    /// `status`'s lines about sync: the server, the device and the last sync with its outcome.
    public static func statusLines(_ state: SyncState?) -> [String] {
        guard let state else { return ["sync:         not set up (podfresh sync setup --server URL --user NAME)"] }
        var lines = [
            "sync:         \(TerminalText.sanitize(state.setup.server.absoluteString)) (\(state.setup.api.rawValue)), user \(TerminalText.sanitize(state.setup.user)), device \(TerminalText.sanitize(state.setup.device))"
        ]
        if let at = state.lastSyncAt, let outcome = state.lastOutcome {
            if let failure = outcome.failure {
                lines.append(
                    "last sync:    \(LocalTime.string(at)) failed: \(TerminalText.sanitize(failureLine(failure)))")
            } else {
                lines.append(
                    "last sync:    \(LocalTime.string(at)) ok: \(outcome.pulledAdded) added and \(outcome.pulledRemoved) removed here, \(outcome.pushedAdded) added and \(outcome.pushedRemoved) removed on the server; \(outcome.actions.received) episode actions read (\(outcome.actions.applied) applied, \(outcome.actions.unmatched) not here), \(outcome.actionsPushed) sent"
                )
            }
        } else {
            lines.append("last sync:    never")
        }
        return lines
    }

    /// `status --json`'s object about sync.
    public static func statusJSON(_ state: SyncState?) -> JSONValue {
        guard let state else { return .null }
        var fields: [(String, JSONValue)] = [
            ("server", .string(state.setup.server.absoluteString)), ("user", .string(state.setup.user)),
            ("device", .string(state.setup.device)), ("api", .string(state.setup.api.rawValue)),
            ("last_sync_at", .date(state.lastSyncAt)),
        ]
        if let outcome = state.lastOutcome {
            fields += [
                ("last_outcome", .string(outcome.failure == nil ? "ok" : "failed")),
                ("pulled_added", .int(outcome.pulledAdded)), ("pulled_removed", .int(outcome.pulledRemoved)),
                ("pushed_added", .int(outcome.pushedAdded)), ("pushed_removed", .int(outcome.pushedRemoved)),
                ("actions_received", .int(outcome.actions.received)),
                ("actions_applied", .int(outcome.actions.applied)),
                ("actions_unmatched", .int(outcome.actions.unmatched)), ("actions_pushed", .int(outcome.actionsPushed)),
                ("message", .string(outcome.failure.map { failureLine($0) })),
            ]
        } else {
            fields.append(("last_outcome", .null))
        }
        return .object(fields)
    }

    /// The prompt for the password at set-up (on the terminal, which does not echo it).
    public static func passwordPrompt(user: String, server: String) -> String {
        "Password for \(TerminalText.sanitize(user)) on \(TerminalText.sanitize(server)) (not shown): "
    }

    /// Set-up without a password to be had.
    public static let noPassword =
        "no password: set PODFRESH_SYNC_PASSWORD, or run `podfresh sync setup` on a terminal to be asked (a password is never taken as an option)."

    /// Set-up done.
    public static func setUp(_ setup: SyncSetup, passwordKeptIn place: String) -> String {
        "sync set up with \(TerminalText.sanitize(setup.server.absoluteString)) (\(setup.api.rawValue)) as \(TerminalText.sanitize(setup.user)), device \(TerminalText.sanitize(setup.device)); the password is kept \(place). `podfresh sync` syncs now; refresh and watch sync first."
    }

    /// Set-up forgotten.
    public static func removed(_ state: SyncState?) -> String {
        guard let state else { return "sync was not set up; nothing to forget." }
        return
            "sync with \(TerminalText.sanitize(state.setup.server.absoluteString)) forgotten, with its password; the subscriptions stay."
    }

    /// `podfresh sync` when sync is not set up.
    public static let notSetUp = "sync is not set up: run `podfresh sync setup --server URL --user NAME` first."

    /// `podfresh sync`'s closing line.
    public static func summary(_ outcome: SyncOutcome, server: String) -> String {
        "synced with \(TerminalText.sanitize(server)): \(outcome.pulledAdded) subscribed and \(outcome.pulledRemoved) unsubscribed here, \(outcome.pushedAdded) added and \(outcome.pushedRemoved) removed on the server; \(outcome.actions.received) episode actions read (\(outcome.actions.applied) applied, \(outcome.actions.played) played to the end, \(outcome.actions.unmatched) not here), \(outcome.actionsPushed) downloads sent"
    }

    /// Another worker holds the lease.
    public static func heldElsewhere() -> String { "another worker is syncing for the fleet now; nothing done." }

    private static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
