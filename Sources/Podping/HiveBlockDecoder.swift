public import Foundation
import Measures

/// Turns a node's answers into ``HiveBlock``s, reading only the fields podfresh uses.
///
/// Decoding is Codable over exactly those fields: everything else (signatures, other operations' values, a ping's
/// `sessionId` or `timestampNs`, which do not fit a 64-bit integer) is skipped unread, so it can neither fail the
/// decoding nor cost anything. One block, transaction or operation that does not decode is dropped without touching
/// the others; one podping whose `json` is not valid, too large or names too many feeds is counted and skipped.
public enum HiveBlockDecoder {
    /// The blocks of a `block_api.get_block_range` result (`{"blocks": [...]}`), in order, stopping at the first
    /// entry that is not a block yet (`{}` or `null`). `firstNumber` numbers blocks whose `block_id` is missing.
    public static func blocks(
        fromRangeResult data: Data, firstNumber: Int64, limits: PodpingLimits = PodpingLimits()
    ) throws(HiveDecodingError) -> [HiveBlock] {
        let range: RawBlockRange
        do {
            range = try JSONDecoder().decode(RawBlockRange.self, from: data)
        } catch {
            throw HiveDecodingError(detail: describe(error))
        }
        return try blocks(fromRange: range, firstNumber: firstNumber, limits: limits)
    }

    static func blocks(
        fromRange range: RawBlockRange, firstNumber: Int64, limits: PodpingLimits
    ) throws(HiveDecodingError) -> [HiveBlock] {
        var result: [HiveBlock] = []
        for (offset, entry) in (range.blocks ?? []).enumerated() {
            guard let raw = entry.value, let block = block(raw, fallbackNumber: firstNumber + Int64(offset), limits)
            else { break }
            result.append(block)
        }
        return result
    }

    /// The notices in one podping operation's `json`, or why it was skipped.
    public static func notice(
        operationID: String, senders: [String], json: String, blockNumber: Int64, blockTime: Date,
        transactionID: String?, limits: PodpingLimits = PodpingLimits()
    ) -> Result<PodpingNotice, PodpingSkipReason> {
        guard json.utf8.count <= limits.maxPayloadBytes else { return .failure(.tooLarge) }
        guard let payload = try? JSONDecoder().decode(RawPayload.self, from: Data(json.utf8)) else {
            return .failure(.malformed)
        }
        var iris: [String] = []
        if let list = payload.iris { iris = list.compactMap(\.value) }
        if iris.isEmpty, let list = payload.urls { iris = list.compactMap(\.value) }
        if iris.isEmpty, let url = payload.url { iris = [url] }
        guard iris.count <= limits.maxIRIs else { return .failure(.tooManyIRIs) }
        guard !iris.isEmpty else { return .failure(.malformed) }
        return .success(
            PodpingNotice(
                blockNumber: blockNumber, blockTime: blockTime, transactionID: transactionID,
                operationID: operationID, senders: senders, reason: payload.reason ?? "update",
                medium: payload.medium ?? "podcast", iris: iris))
    }

    /// What an operation's `id` says it is.
    public enum OperationKind: Sendable, Equatable {
        /// `podping`, or `pp_…` (e.g. `pp_podcast_update`).
        case podping
        /// `podping-livetest`, or `pplt_…`: a writer's test, not a feed change.
        case liveTest
        /// Any other application's `custom_json` (follows, games, …).
        case foreign
    }

    /// Classifies a `custom_json` operation by its `id`.
    public static func kind(ofOperationID id: String) -> OperationKind {
        if id == "podping" || id.hasPrefix("pp_") { return .podping }
        if id == "podping-livetest" || id.hasPrefix("pplt_") { return .liveTest }
        return .foreign
    }

    // MARK: - Blocks

    private static func block(_ raw: RawBlock, fallbackNumber: Int64, _ limits: PodpingLimits) -> HiveBlock? {
        guard let timestamp = raw.timestamp, let time = chainTime(timestamp) else { return nil }
        let number = raw.blockID.flatMap(blockNumber(fromID:)) ?? fallbackNumber
        var block = HiveBlock(number: number, time: time)
        for (index, entry) in (raw.transactions ?? []).enumerated() {
            guard let transaction = entry.value else { continue }
            let transactionID = raw.transactionIDs.flatMap { index < $0.count ? $0[index].value : nil }
            for operation in transaction.operations ?? [] {
                guard let custom = operation.value?.customJSON, let id = custom.id else { continue }
                switch kind(ofOperationID: id) {
                case .foreign: continue
                case .liveTest: block.skipped.tests += 1
                case .podping:
                    let senders = (custom.requiredPostingAuths ?? []) + (custom.requiredAuths ?? [])
                    guard let json = custom.json else {
                        block.skipped.malformed += 1
                        continue
                    }
                    switch notice(
                        operationID: id, senders: senders, json: json, blockNumber: number, blockTime: time,
                        transactionID: transactionID, limits: limits)
                    {
                    case .success(let notice): block.notices.append(notice)
                    case .failure(.malformed): block.skipped.malformed += 1
                    case .failure(.tooLarge): block.skipped.tooLarge += 1
                    case .failure(.tooManyIRIs): block.skipped.tooManyIRIs += 1
                    }
                }
            }
        }
        return block
    }

    /// A block's number from its id: the id's first 8 hex digits are the height, big-endian.
    static func blockNumber(fromID id: String) -> Int64? {
        guard id.utf8.count >= 8 else { return nil }
        return Int64(id.prefix(8), radix: 16)
    }

    /// `2021-05-07T20:58:33` (UTC, as the chain writes it; a trailing `Z` or fraction is accepted).
    public static func chainTime(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm), UTC.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default: return ErrorWords.describe(error)
        }
    }
}

/// Why one podping operation was skipped.
public enum PodpingSkipReason: Error, Sendable, Hashable {
    /// Its `json` is not a JSON object naming at least one feed.
    case malformed
    /// Its `json` is larger than ``PodpingLimits/maxPayloadBytes``.
    case tooLarge
    /// It names more feeds than ``PodpingLimits/maxIRIs``.
    case tooManyIRIs
}

/// A node's answer that is not the JSON a block range should be.
public struct HiveDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The decoder's own account of where the JSON differs (a coding path and what was expected there).
    public let detail: String
    /// For logs and debugging only; ConsoleOutput words it as a node's ``HiveNodeError/Reason/undecodableBlocks(detail:)``.
    public var description: String { "HiveDecodingError(\(detail))" }
}

// MARK: - The fields read

/// A value that may fail to decode without failing what holds it.
struct Lossy<Value: Decodable>: Decodable {
    let value: Value?
    init(from decoder: any Decoder) throws {
        value = try? Value(from: decoder)
    }
}

struct RawBlockRange: Decodable {
    let blocks: [Lossy<RawBlock>]?
}

struct RawBlock: Decodable {
    let timestamp: String?
    let blockID: String?
    let transactionIDs: [Lossy<String>]?
    let transactions: [Lossy<RawTransaction>]?

    enum CodingKeys: String, CodingKey {
        case timestamp, transactions
        case blockID = "block_id"
        case transactionIDs = "transaction_ids"
    }
}

struct RawTransaction: Decodable {
    let operations: [Lossy<RawOperation>]?
}

/// An operation in either form nodes use: `{"type": "custom_json_operation", "value": {...}}` (appbase APIs) or
/// `["custom_json", {...}]` (condenser API). Only a `custom_json`'s value is read.
struct RawOperation: Decodable {
    let customJSON: RawCustomJSON?

    enum CodingKeys: String, CodingKey { case type, value }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: CodingKeys.self) {
            let type = try keyed.decode(String.self, forKey: .type)
            customJSON = type == "custom_json_operation" ? try keyed.decode(RawCustomJSON.self, forKey: .value) : nil
            return
        }
        var list = try decoder.unkeyedContainer()
        let type = try list.decode(String.self)
        customJSON = type == "custom_json" ? try list.decode(RawCustomJSON.self) : nil
    }
}

struct RawCustomJSON: Decodable {
    let id: String?
    let json: String?
    let requiredPostingAuths: [String]?
    let requiredAuths: [String]?

    enum CodingKeys: String, CodingKey {
        case id, json
        case requiredPostingAuths = "required_posting_auths"
        case requiredAuths = "required_auths"
    }
}

/// A podping's `json`: `{"version", "medium", "reason", "iris": [...]}`, or the older `url` / `urls`.
struct RawPayload: Decodable {
    let medium: String?
    let reason: String?
    let iris: [Lossy<String>]?
    let urls: [Lossy<String>]?
    let url: String?

    enum CodingKeys: String, CodingKey { case medium, reason, iris, urls, url }

    init(from decoder: any Decoder) throws {
        let keyed = try decoder.container(keyedBy: CodingKeys.self)
        medium = try? keyed.decodeIfPresent(String.self, forKey: .medium)
        reason = try? keyed.decodeIfPresent(String.self, forKey: .reason)
        iris = try? keyed.decodeIfPresent([Lossy<String>].self, forKey: .iris)
        urls = try? keyed.decodeIfPresent([Lossy<String>].self, forKey: .urls)
        url = try? keyed.decodeIfPresent(String.self, forKey: .url)
    }
}
