import Foundation
import RefreshEngine
import Testing

struct HostSpreadingTests {
    struct Item: Hashable {
        var host: String
        var n: Int
    }

    @Test func feedsOfOneHostAreSpreadAndNoneIsLost() {
        let items =
            (0..<6).map { Item(host: "big.example", n: $0) } + (0..<3).map { Item(host: "small.example", n: $0) } + [
                Item(host: "one.example", n: 0)
            ]
        var generator = SystemRandomNumberGenerator()
        let ordered = HostSpreading.order(items, host: \.host, using: &generator)
        #expect(Set(ordered) == Set(items))
        #expect(ordered.count == items.count)
        // The first round visits every host before any host comes again.
        #expect(Set(ordered.prefix(3).map(\.host)).count == 3)
        let adjacentSameHost = zip(ordered, ordered.dropFirst()).filter { $0.host == $1.host }.count
        #expect(adjacentSameHost <= 3, "only the surplus of the biggest host may sit side by side")
    }
}
