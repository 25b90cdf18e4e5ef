/// The feeds of one batch waiting for a slot, grouped by host in the order they were accepted.
///
/// Choosing the next feed (``DataFetchCoordinator/State/claimNext(from:globalLimit:perHost:holdingBack:)``) looks at
/// each host once, not at each waiting feed: a host's name is worked out of its URL once, when the feed is accepted,
/// and each host keeps its count of feeds waiting and whether this batch has asked it yet.
struct PendingFeeds {
    /// One host's waiting feeds, oldest first.
    struct HostQueue {
        /// The feeds, with the position each was accepted at; those before `head` have been taken.
        fileprivate(set) var feeds: [(order: Int, feed: FeedTarget)] = []
        fileprivate(set) var head = 0
        /// Whether this batch has started a fetch for this host.
        fileprivate(set) var asked = false

        /// How many of the host's feeds wait.
        var waiting: Int { feeds.count - head }
        /// The acceptance position of the host's oldest waiting feed.
        var firstOrder: Int { feeds[head].order }
    }

    private(set) var hosts: [String: HostQueue] = [:]
    private var ids: Set<Int64> = []
    private var nextOrder = 0

    init(_ feeds: [FeedTarget] = []) {
        for feed in feeds { append(feed) }
    }

    /// How many feeds wait.
    var count: Int { ids.count }
    var isEmpty: Bool { ids.isEmpty }

    /// Whether feed `id` waits here.
    func contains(id: Int64) -> Bool { ids.contains(id) }

    /// Adds a feed after every feed accepted so far (a feed already waiting is not added twice).
    mutating func append(_ feed: FeedTarget) {
        guard ids.insert(feed.id).inserted else { return }
        hosts[feed.host, default: HostQueue()].feeds.append((nextOrder, feed))
        nextOrder += 1
    }

    /// Takes the oldest waiting feed of `host` and marks the host asked.
    mutating func removeFirst(of host: String) -> FeedTarget {
        let feed = hosts[host, default: HostQueue()].takeFirst()
        ids.remove(feed.id)
        return feed
    }

    /// Takes every waiting feed, in the order they were accepted.
    mutating func removeAll() -> [FeedTarget] {
        let all = hosts.values.flatMap { $0.feeds[$0.head...] }.sorted { $0.order < $1.order }.map(\.feed)
        hosts.removeAll()
        ids.removeAll()
        return all
    }
}

extension PendingFeeds.HostQueue {
    fileprivate mutating func takeFirst() -> FeedTarget {
        let feed = feeds[head].feed
        head += 1
        asked = true
        if head == feeds.count {
            feeds.removeAll(keepingCapacity: false)
            head = 0
        }
        return feed
    }
}
