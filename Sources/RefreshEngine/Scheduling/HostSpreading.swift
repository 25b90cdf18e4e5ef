/// Spreads feeds of one host over a run instead of fetching them all at once.
public enum HostSpreading {
    /// Shuffles the items (so an interrupted run still gives every feed a chance), then interleaves hosts round-robin,
    /// busiest host first, so no host gets a burst.
    public static func order<T>(_ items: [T], host: (T) -> String) -> [T] {
        var generator = SystemRandomNumberGenerator()
        return order(items, host: host, using: &generator)
    }

    public static func order<T, R: RandomNumberGenerator>(
        _ items: [T], host: (T) -> String, using generator: inout R
    ) -> [T] {
        var groups: [String: [T]] = [:]
        var hosts: [String] = []
        for item in items.shuffled(using: &generator) {
            let key = host(item)
            if groups[key] == nil { hosts.append(key) }
            groups[key, default: []].append(item)
        }
        hosts.sort { groups[$0]!.count > groups[$1]!.count }
        var result: [T] = []
        result.reserveCapacity(items.count)
        var round = 0
        while result.count < items.count {
            for key in hosts where round < groups[key]!.count { result.append(groups[key]![round]) }
            round += 1
        }
        return result
    }
}
