public import FeedModels
public import Foundation
import HTTPTransport

#if canImport(Glibc)
import Glibc
#endif

/// What the server says happened to episodes since a cursor.
public struct EpisodeActionChanges: Sendable, Hashable {
    /// The actions, in the server's order; an item the API does not define (no feed or episode URL, an action podfresh
    /// does not use such as `flattr`) is left out and counted in ``skipped``.
    public var actions: [EpisodeAction]
    /// Items of the answer left out.
    public var skipped: Int
    /// The cursor to ask from next time.
    public var timestamp: Int64

    public init(actions: [EpisodeAction], skipped: Int = 0, timestamp: Int64) {
        self.actions = actions
        self.skipped = skipped
        self.timestamp = timestamp
    }
}

extension SyncServerClient {
    /// How many actions one push carries at most (a large outbox goes in several).
    public static let actionsPerPush = 1000

    /// The episode actions since `since` (0: every action the server holds): gpodder.net's
    /// `GET /api/2/episodes/{user}.json?since=…`, Nextcloud's `GET …/gpoddersync/episode_action?since=…`; both answer
    /// `{actions, timestamp}`.
    /// - Throws: ``SyncFailure`` (step ``SyncFailure/Step/pullActions``).
    public func pullEpisodeActions(since: Int64) async throws(SyncFailure) -> EpisodeActionChanges {
        let step = SyncFailure.Step.pullActions
        let bytes = try await send(
            .get, path: episodeActionsPath, query: "since=\(max(0, since))", body: nil, step: step)
        let raw: RawActionList = try decode(bytes, step: step)
        guard let timestamp = raw.timestamp else {
            throw failure(step, .malformed, detail: "no \"timestamp\" in the answer")
        }
        guard let items = raw.actions else { throw failure(step, .malformed, detail: "no \"actions\" in the answer") }
        var actions: [EpisodeAction] = []
        actions.reserveCapacity(items.count)
        for item in items {
            if let action = item.action { actions.append(action) }
        }
        return EpisodeActionChanges(actions: actions, skipped: items.count - actions.count, timestamp: timestamp)
    }

    /// Pushes actions made on this device (at most ``actionsPerPush``; the caller pages), each with this device's id.
    /// - Returns: The server's timestamp, when it gave one.
    /// - Throws: ``SyncFailure`` (step ``SyncFailure/Step/pushActions``).
    @discardableResult
    public func pushEpisodeActions(_ actions: [EpisodeAction]) async throws(SyncFailure) -> Int64? {
        let step = SyncFailure.Step.pushActions
        let body = try encode(actions.map { RawOutgoingAction($0, device: setup.device) }, step: step)
        let path: String
        switch setup.api {
        case .gpodder: path = episodeActionsPath
        case .nextcloud: path = "index.php/apps/gpoddersync/episode_action/create"
        }
        let bytes = try await send(.post, path: path, query: nil, body: body, step: step)
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D }) { return nil }
        let answer: RawActionPushAnswer = try decode(bytes, step: step)
        return answer.timestamp
    }

    private var episodeActionsPath: String {
        switch setup.api {
        case .gpodder: "api/2/episodes/\(segment(setup.user)).json"
        case .nextcloud: "index.php/apps/gpoddersync/episode_action"
        }
    }
}

/// The API's timestamps: UTC `YYYY-MM-DDTHH:MM:SS` (what podfresh sends); read leniently (fractions of a second, a `Z`
/// or an offset, a space for the `T`), as servers and phones write them.
public enum ActionTimestamp {
    /// `date` as the API writes it, in UTC.
    public static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// The date a timestamp names; nil when it is not one.
    public static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for i in range {
                let d = Int(b[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                value = value * 10 + d
            }
            return value
        }
        guard b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x54 || b[10] == 0x20 || b[10] == 0x74, b[13] == 0x3A,
            b[16] == 0x3A, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < b.count, b[index] == 0x2E {
            index += 1
            var scale = 0.1
            while index < b.count, b[index] >= 0x30, b[index] <= 0x39 {
                fraction += Double(b[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
        }
        var offset = 0
        if index < b.count {
            switch b[index] {
            case 0x5A, 0x7A: index += 1
            case 0x2B, 0x2D:
                guard b.count >= index + 6, b[index + 3] == 0x3A, let h = number(index + 1..<index + 3),
                    let m = number(index + 4..<index + 6)
                else { return nil }
                offset = (h * 3600 + m * 60) * (b[index] == 0x2D ? -1 : 1)
                index += 6
            default: return nil
            }
        }
        guard index == b.count else { return nil }
        // Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}

/// `{actions, timestamp}`.
struct RawActionList: Decodable {
    let actions: [RawAction]?
    let timestamp: Int64?
}

/// One action as a server writes it: every field optional and read leniently (a number may come as text; `-1` is
/// Nextcloud's "none"), so one odd item does not cost the others.
struct RawAction: Decodable {
    let podcast: String?
    let episode: String?
    let guid: String?
    let kind: String?
    let timestamp: String?
    let started: Int?
    let position: Int?
    let total: Int?
    let device: String?

    enum CodingKeys: String, CodingKey {
        case podcast, episode, guid, timestamp, started, position, total, device
        case kind = "action"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) -> String? { (try? c.decodeIfPresent(String.self, forKey: key)) ?? nil }
        func seconds(_ key: CodingKeys) -> Int? {
            let value: Int? =
                ((try? c.decodeIfPresent(Int.self, forKey: key)) ?? nil)
                ?? ((try? c.decodeIfPresent(Double.self, forKey: key)) ?? nil).flatMap { $0.isFinite ? Int($0) : nil }
                ?? text(key).flatMap { Int($0) }
            return value.flatMap { $0 >= 0 ? $0 : nil }
        }
        podcast = text(.podcast)
        episode = text(.episode)
        guid = text(.guid)
        kind = text(.kind)
        timestamp = text(.timestamp)
        started = seconds(.started)
        position = seconds(.position)
        total = seconds(.total)
        device = text(.device)
    }

    /// The action, or nil when the item lacks what the API requires or names an action podfresh does not use.
    var action: EpisodeAction? {
        guard let podcast, !podcast.isEmpty, let episode, !episode.isEmpty, let kind,
            let actionKind = EpisodeActionKind(apiName: kind)
        else { return nil }
        return EpisodeAction(
            podcast: podcast, episode: episode, guid: guid.flatMap { $0.isEmpty ? nil : $0 }, kind: actionKind,
            timestamp: timestamp.flatMap(ActionTimestamp.date), started: started, position: position, total: total,
            device: device)
    }
}

/// One action as podfresh sends it: `podcast`, `episode`, `guid` (when known), `action`, `timestamp` (UTC), `device`;
/// `started`, `position` and `total` only when known.
struct RawOutgoingAction: Encodable {
    let podcast: String
    let episode: String
    let guid: String?
    let action: String
    let timestamp: String
    let device: String
    let position: Int?
    let total: Int?

    init(_ action: EpisodeAction, device: String) {
        podcast = action.podcast
        episode = action.episode
        guid = action.guid
        self.action = action.kind.rawValue
        timestamp = ActionTimestamp.string(action.timestamp ?? Date(timeIntervalSince1970: 0))
        self.device = device
        position = action.position
        total = action.total
    }

    enum CodingKeys: String, CodingKey {
        case podcast, episode, guid, action, timestamp, device, position, total
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(podcast, forKey: .podcast)
        try c.encode(episode, forKey: .episode)
        try c.encodeIfPresent(guid, forKey: .guid)
        try c.encode(action, forKey: .action)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(device, forKey: .device)
        try c.encodeIfPresent(position, forKey: .position)
        try c.encodeIfPresent(total, forKey: .total)
    }
}

/// `{timestamp, update_urls}` (gpodder.net) or `{timestamp}` (Nextcloud).
struct RawActionPushAnswer: Decodable {
    let timestamp: Int64?
}
