import FeedParsing
import Foundation
import Podping
import RefreshEngine

/// Every word podfresh says about podping, and the keys of its JSON Lines events.
enum PodpingText {
    /// The human line for an event, and whether it is an error (standard error); nil: human styles say nothing.
    static func line(_ event: PodpingEvent) -> (text: String, isError: Bool)? {
        switch event {
        case .startedAtHead(let block):
            return ("podping: reading the chain from its head, block \(block)", false)
        case .skippedAhead(let from, let to, let blocks):
            return (
                "podping: \(blocks) blocks behind the chain (blocks \(from + 1)-\(to) not read); skipped ahead to block \(to). Feeds pinged meanwhile are checked on their schedule as usual",
                true
            )
        case .matched(let match):
            let when: String
            if let due = match.dueAt {
                when = due.timeIntervalSinceNow > 1 ? "due at \(LocalTime.string(due)) (cooldown)" : "due now"
            } else {
                when = "already checked since, or due sooner"
            }
            return (
                "podping: \(TerminalText.sanitize(match.feed.displayName)): \(TerminalText.sanitize(match.reason)) in block \(match.block); \(when)",
                false
            )
        case .nodeFailed(let error):
            return ("podping node: \(TerminalText.sanitize(node(error))); trying the next", true)
        case .unavailable(let error):
            return (
                "podping: \(TerminalText.sanitize(unavailable(error))); trying again later (feeds are polled meanwhile)",
                true
            )
        case .storeFailed(let error):
            return (
                "podping: the store failed: \(TerminalText.sanitize(StoreErrorText.line(error))); trying again later (feeds are polled meanwhile)",
                true
            )
        case .leaseHeldElsewhere(let worker, let until):
            return (
                "podping: worker \(TerminalText.sanitize(worker)) reads the chain (lease until \(LocalTime.string(until))); this worker refreshes what it marks due",
                false
            )
        case .leaseTaken(let block):
            return ("podping: this worker reads the chain" + (block.map { " from block \($0)" } ?? ""), false)
        case .blocksRead, .received:
            return nil
        }
    }

    /// The JSON Lines object for an event.
    static func json(_ event: PodpingEvent) -> [(String, JSONValue)] {
        switch event {
        case .startedAtHead(let block):
            return [("event", .string("podping_started")), ("block", .int(Int(block)))]
        case .skippedAhead(let from, let to, let blocks):
            return [
                ("event", .string("podping_skipped_ahead")), ("from_block", .int(Int(from))),
                ("to_block", .int(Int(to))), ("blocks", .int(Int(blocks))),
            ]
        case .blocksRead(let read):
            return [
                ("event", .string("podping_blocks")), ("count", .int(read.count)), ("through", .int(Int(read.through))),
                ("head", .int(Int(read.head))), ("block_time", .date(read.lastBlockTime)),
                ("notices", .int(read.notices)), ("tests", .int(read.tests)), ("refused", .int(read.refused)),
            ]
        case .received(let receipt):
            return [
                ("event", .string("podping_received")), ("block", .int(Int(receipt.block))),
                ("block_time", .date(receipt.blockTime)), ("id", .string(receipt.operationID)),
                ("senders", .array(receipt.senders.map { .string($0) })), ("reason", .string(receipt.reason)),
                ("medium", .string(receipt.medium)), ("iris", .int(receipt.iris)), ("matched", .int(receipt.matched)),
                ("untrusted", .int(receipt.untrusted)),
            ]
        case .matched(let match):
            return [("event", .string("podping_matched"))] + EventJSON.feedFields(match.feed) + [
                ("block", .int(Int(match.block))), ("block_time", .date(match.blockTime)),
                ("reason", .string(match.reason)), ("iri", .string(match.iri)), ("due_at", .date(match.dueAt)),
            ]
        case .nodeFailed(let error):
            return [
                ("event", .string("podping_node_failed")), ("node", .url(error.node)),
                ("kind", .string(error.kind.rawValue)), ("message", .string(node(error))),
            ]
        case .unavailable(let error):
            return [("event", .string("podping_unavailable")), ("message", .string(unavailable(error)))]
        case .storeFailed(let error):
            return [
                ("event", .string("podping_unavailable")),
                ("message", .string("the store failed: " + StoreErrorText.line(error))),
            ]
        case .leaseHeldElsewhere(let worker, let until):
            return [("event", .string("podping_lease")), ("held_by", .string(worker)), ("until", .date(until))]
        case .leaseTaken(let block):
            return [("event", .string("podping_lease")), ("held_by", .null), ("block", .int(block.map(Int.init)))]
        }
    }

    /// Why every node failed: each node's last failure, in the order tried.
    static func unavailable(_ error: PodpingUnavailable) -> String {
        error.failures.isEmpty
            ? "no podping node is configured"
            : "no podping node answered: " + error.failures.map(node).joined(separator: "; ")
    }

    /// Why one node could not be used, naming it.
    static func node(_ error: HiveNodeError) -> String {
        let node = error.node.absoluteString
        switch error.reason {
        case .unreachable(let reason): return "\(node) is unreachable (\(reason))"
        case .timedOut(let method): return "\(node) did not answer \(method) in time"
        case .rateLimited(let retryAfter):
            return "\(node) is rate-limiting us (HTTP 429\(retryAfter.map { ", Retry-After \($0)" } ?? ""))"
        case .httpStatus(let method, let status): return "\(node) answered \(method) with HTTP \(status)"
        case .rpcError(let method, let code, let message):
            return
                "\(node) refused \(method): JSON-RPC error \(code.map(String.init) ?? "?") \(message ?? "(no message)")"
        case .tooLarge(let method, let maxBytes): return "\(node) answered \(method) with more than \(maxBytes) bytes"
        case .notJSONRPC(let method, let detail):
            return "\(node) answered \(method) with something that is not JSON-RPC (\(detail))"
        case .emptyAnswer(let method): return "\(node) answered \(method) with neither a result nor an error"
        case .headIncomplete:
            return "\(node) answered get_dynamic_global_properties without head_block_number and time"
        case .undecodableBlocks(let detail):
            return "\(node): the block range is not the JSON podfresh expects (\(detail))"
        case .wrongBlock(let got, let asked): return "\(node) answered block \(got) where block \(asked) was asked for"
        case .headTooOld(let block, let seconds): return "\(node) lags: its head block \(block) is \(seconds) s old"
        case .headBehind(let block, let blocks):
            return "\(node) lags: its head block \(block) is \(blocks) blocks behind another node's"
        case .unexpected(let reason): return "\(node): \(reason)"
        }
    }
}
