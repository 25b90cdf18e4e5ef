// INTERIM: replaced by the Scheduling/ and Hooks/ modules when they land.
public import Foundation

public struct SchedulePolicy: Sendable { public init() {}
 public init(minInterval: Double, maxInterval: Double, revalidateEvery: Double) {} }
public struct ScheduleDecision: Sendable { public var nextCheckAt: Date?; public var reason: String }
public struct ScheduleInput: Sendable {
    public enum Result: Sendable { case success, failure, gone }
    public init(now: Date, result: Result, consecutiveFailures: Int, recentPublishedDates: [Date] = [], ttlMinutes: Int? = nil,
                syndicationUpdatePeriod: String? = nil, syndicationUpdateFrequency: Int? = nil, podcastUpdateFrequency: String? = nil,
                isComplete: Bool, maxAge: Int? = nil, expires: Date? = nil, retryAfter: Date?) { self.now = now }
    var now: Date
}
public enum FeedScheduler {
    public static func decide(_ input: ScheduleInput, policy: SchedulePolicy) -> ScheduleDecision {
        ScheduleDecision(nextCheckAt: input.now.addingTimeInterval(3600), reason: "interim")
    }
    public static func shouldRevalidate(lastUnconditionalAt: Date?, now: Date, policy: SchedulePolicy) -> Bool { false }
}
public enum HostSpreading {
    public static func order<T>(_ items: [T], host: (T) -> String) -> [T] { items }
}
public struct HookEpisode: Sendable {
    public init(feedTitle: String, feedURL: String, episodeTitle: String, episodeURL: String, enclosureURL: String,
                enclosureType: String, published: Date?, guid: String, identity: String, duration: Double?) {}
}
public struct HookResult: Sendable { public var problemDescription: String? }
public enum NewEpisodeHook {
    public static func run(command: String, episode: HookEpisode) async -> HookResult { HookResult() }
}
