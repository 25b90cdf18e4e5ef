public import Foundation
import NIOConcurrencyHelpers

/// A Hive chain for tests, served as JSON-RPC API nodes on a ``TestHTTPServer``: blocks in the format public nodes
/// give (`block_api.get_block_range`, `condenser_api.get_dynamic_global_properties`), produced when a test says so.
///
/// Several nodes can serve one chain (each a path of the server), each with its own misbehaviour: a JSON-RPC error,
/// an HTTP error, rate limiting, a head that lags, an answer held back past a client's time-out. Every call is
/// counted per node.
public final class FakeHiveChain: @unchecked Sendable {
    /// One operation of a transaction, as the JSON text a node writes for it.
    public struct Operation: Sendable {
        public var json: String

        /// A `custom_json` operation signed by `senders` with this `id` and `json` string.
        public static func customJSON(id: String, json: String, senders: [String]) -> Operation {
            Operation(
                json:
                    "{\"type\":\"custom_json_operation\",\"value\":{\"required_auths\":[],\"required_posting_auths\":\(FakeHiveChain.jsonArray(senders)),\"id\":\(FakeHiveChain.jsonString(id)),\"json\":\(FakeHiveChain.jsonString(json))}}"
            )
        }

        /// A podping (`pp_podcast_update` by default) for `iris`, written by `sender`, as version 1.0 writers do
        /// (with a `sessionId` that does not fit a 64-bit integer).
        public static func podping(
            _ iris: [String], sender: String = "podping.aaa", id: String = "pp_podcast_update",
            reason: String = "update"
        ) -> Operation {
            customJSON(
                id: id,
                json:
                    "{\"version\":\"1.0\",\"medium\":\"podcast\",\"reason\":\"\(reason)\",\"iris\":\(FakeHiveChain.jsonArray(iris)),\"timestampNs\":1732579200123456789,\"sessionId\":18446744073709551616123}",
                senders: [sender])
        }

        /// Any operation, as raw JSON (a vote, a transfer …).
        public init(json: String) { self.json = json }
    }

    /// How one node misbehaves.
    public enum Fault: Sendable, Equatable {
        case none
        /// Every call gets this JSON-RPC error.
        case rpcError(code: Int, message: String)
        /// Every call gets this HTTP status.
        case httpStatus(Int)
        /// Every call gets HTTP 429 with `Retry-After`.
        case rateLimited
        /// The node's head is this many blocks behind (and its time that of its head).
        case lagging(blocks: Int64)
        /// Every answer is held back this long.
        case slow(Duration)
    }

    struct Block {
        var time: Date
        var transactions: [[Operation]]
    }

    struct State {
        var blocks: [Int64: Block] = [:]
        var head: Int64
        var faults: [String: Fault] = [:]
        var calls: [String: [String]] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let server: TestHTTPServer

    /// A chain whose head is block `head` (older blocks are empty), served on `server`.
    public init(server: TestHTTPServer, head: Int64 = 90_000_000) {
        self.server = server
        state = NIOLockedValueBox(State(head: head))
        state.withLockedValue { $0.blocks[head] = Block(time: Date(), transactions: []) }
    }

    /// Serves a node at `path` and returns its URL.
    @discardableResult
    public func node(_ path: String, fault: Fault = .none) -> URL {
        state.withLockedValue { $0.faults[path] = fault }
        server.setRoute(path) { [self] request in answer(request, node: path) }
        return server.url(path)
    }

    /// Changes how the node at `path` misbehaves.
    public func setFault(_ fault: Fault, for path: String) {
        state.withLockedValue { $0.faults[path] = fault }
    }

    /// The JSON-RPC methods the node at `path` was asked, in order.
    public func calls(to path: String) -> [String] { state.withLockedValue { $0.calls[path] ?? [] } }

    /// The head block's number.
    public var head: Int64 { state.withLockedValue { $0.head } }

    /// Produces the next block, holding one transaction per element of `transactions`, at `time` (now by default).
    @discardableResult
    public func produce(_ transactions: [[Operation]] = [], at time: Date = Date()) -> Int64 {
        state.withLockedValue { state in
            state.head += 1
            state.blocks[state.head] = Block(time: time, transactions: transactions)
            return state.head
        }
    }

    /// Produces `count` empty blocks at once (a chain that went on while a reader was away).
    public func produceEmpty(_ count: Int64) {
        state.withLockedValue { state in
            let now = Date()
            for _ in 0..<count {
                state.head += 1
                state.blocks[state.head] = Block(time: now, transactions: [])
            }
        }
    }

    // MARK: - Answering

    private func answer(_ request: TestRequest, node: String) -> TestResponse {
        let call = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
        let method = call?["method"] as? String ?? "?"
        let (fault, snapshot) = state.withLockedValue { state in
            state.calls[node, default: []].append(method)
            return (state.faults[node] ?? Fault.none, state)
        }
        switch fault {
        case .rpcError(let code, let message):
            return rpc(error: code, message: message)
        case .httpStatus(let status):
            return TestResponse(status: status, text: "node trouble")
        case .rateLimited:
            return TestResponse(status: 429, headers: [("Retry-After", "30")], text: "too many requests")
        case .none, .lagging, .slow:
            break
        }
        var lag: Int64 = 0
        if case .lagging(let blocks) = fault { lag = blocks }
        let visibleHead = snapshot.head - lag
        var response: TestResponse
        switch method {
        case "condenser_api.get_dynamic_global_properties":
            // A lagging node's head is as old as the blocks it is missing.
            let time =
                lag > 0
                ? Date(timeIntervalSinceNow: -Double(lag) * 3) : (snapshot.blocks[visibleHead]?.time ?? Date())
            response = rpc(
                result:
                    "{\"head_block_number\":\(visibleHead),\"head_block_id\":\"\(Self.blockID(visibleHead))\",\"time\":\"\(Self.chainTime(time))\",\"current_witness\":\"gtg\",\"total_vesting_shares\":\"312345678901.123456 VESTS\",\"recent_slots_filled\":\"340282366920938463463374607431768211455\",\"last_irreversible_block_num\":\(visibleHead - 20)}"
            )
        case "block_api.get_block_range":
            let params = call?["params"] as? [String: Any]
            let first = (params?["starting_block_num"] as? NSNumber)?.int64Value ?? 0
            let count = Int64((params?["count"] as? NSNumber)?.intValue ?? 0)
            guard count >= 1, count <= 1000 else {
                return rpc(error: -32003, message: "Assert Exception:count <= 1000: You can only ask for 1000 blocks")
            }
            var blocks: [String] = []
            var number = first
            while number < first + count, number <= visibleHead {
                let block = snapshot.blocks[number] ?? Block(time: Date(), transactions: [])
                blocks.append(Self.blockJSON(number, block))
                number += 1
            }
            response = rpc(result: "{\"blocks\":[\(blocks.joined(separator: ","))]}")
        default:
            return rpc(error: -32601, message: "Could not find method \(method)")
        }
        if case .slow(let delay) = fault { response.delay = delay }
        return response
    }

    private func rpc(result: String) -> TestResponse {
        TestResponse(
            headers: [("Content-Type", "application/json")], text: "{\"jsonrpc\":\"2.0\",\"result\":\(result),\"id\":1}"
        )
    }

    private func rpc(error code: Int, message: String) -> TestResponse {
        TestResponse(
            headers: [("Content-Type", "application/json")],
            text:
                "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":\(code),\"message\":\(Self.jsonString(message)),\"data\":{\"code\":10,\"name\":\"assert_exception\"}},\"id\":1}"
        )
    }

    static func blockJSON(_ number: Int64, _ block: Block) -> String {
        let transactions = block.transactions.map { operations in
            "{\"ref_block_num\":\(number & 0xffff),\"ref_block_prefix\":1843912011,\"expiration\":\"\(chainTime(block.time.addingTimeInterval(60)))\",\"operations\":[\(operations.map(\.json).joined(separator: ","))],\"extensions\":[],\"signatures\":[\"1f3c5a0b7d\"]}"
        }
        let ids = block.transactions.indices.map { "\"\(String(format: "%040x", Int(number) * 1000 + $0))\"" }
        return
            "{\"previous\":\"\(blockID(number - 1))\",\"timestamp\":\"\(chainTime(block.time))\",\"witness\":\"blocktrades\",\"transaction_merkle_root\":\"0000000000000000000000000000000000000000\",\"extensions\":[],\"witness_signature\":\"1f00\",\"transactions\":[\(transactions.joined(separator: ","))],\"block_id\":\"\(blockID(number))\",\"signing_key\":\"STM5...\",\"transaction_ids\":[\(ids.joined(separator: ","))]}"
    }

    /// A block id whose first 8 hex digits are the block's number, as on the chain.
    public static func blockID(_ number: Int64) -> String {
        String(format: "%08x", Int(number)) + String(repeating: "ab", count: 16)
    }

    /// `2024-11-26T00:40:13`: the chain's time format (UTC, whole seconds).
    public static func chainTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
    }

    /// `text` as a JSON string literal.
    public static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func jsonArray(_ items: [String]) -> String { "[" + items.map(jsonString).joined(separator: ",") + "]" }
}
