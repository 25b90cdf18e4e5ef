import FeedParsing
public import FeedScheduling

/// What `podfresh replay-schedule` prints: one row per policy.
public enum ReplayReport {
    public struct Row: Sendable {
        public var policy: String
        public var result: ScheduleReplay.Result

        public init(policy: String, result: ScheduleReplay.Result) {
            self.policy = policy
            self.result = result
        }
    }

    /// A Markdown table, as docs/benchmarks.md quotes it.
    public static func table(_ rows: [Row]) -> String {
        var lines = [
            "| policy | feeds | episodes | requests / feed / day | delay, median | delay, p95 |",
            "| --- | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in rows {
            let r = row.result
            lines.append(
                "| \(row.policy) | \(r.feeds) | \(r.episodes) | \(format(r.requestsPerFeedDay)) | "
                    + "\(minutes(r.delayMedianMinutes)) | \(minutes(r.delayP95Minutes)) |")
        }
        return lines.joined(separator: "\n")
    }

    /// One JSON object per policy and line: `policy`, `feeds`, `episodes`, `requests_per_feed_day`,
    /// `delay_median_minutes`, `delay_p95_minutes`.
    public static func jsonLines(_ rows: [Row]) -> String {
        rows.map { row in
            JSONValue.object([
                ("policy", .string(row.policy)), ("feeds", .int(row.result.feeds)),
                ("episodes", .int(row.result.episodes)),
                ("requests_per_feed_day", .double(rounded(row.result.requestsPerFeedDay))),
                ("delay_median_minutes", .double(rounded(row.result.delayMedianMinutes))),
                ("delay_p95_minutes", .double(rounded(row.result.delayP95Minutes))),
            ]).serialized()
        }.joined(separator: "\n")
    }

    static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

    static func format(_ value: Double) -> String {
        let text = String(Int((value * 10).rounded()))
        return text.count > 1 ? "\(text.dropLast()).\(text.suffix(1))" : "0.\(text)"
    }

    /// `9 min`, or `3.5 h` from two hours on.
    static func minutes(_ value: Double) -> String {
        value >= 120 ? "\(format(value / 60)) h" : "\(Int(value.rounded())) min"
    }
}
