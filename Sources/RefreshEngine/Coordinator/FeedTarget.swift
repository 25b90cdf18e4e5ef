public import Foundation

/// The feed a fetch is about: enough to name it in progress lines and events.
public struct FeedTarget: Sendable, Hashable, Identifiable {
    /// The subscription id.
    public var id: Int64
    public var url: URL
    public var title: String?

    public init(id: Int64, url: URL, title: String? = nil) {
        self.id = id
        self.url = url
        self.title = title
    }

    /// The title, or the URL when the feed has none yet.
    public var displayName: String { title.flatMap { $0.isEmpty ? nil : $0 } ?? url.absoluteString }
    /// The host fetches are spread and capped by (`file` URLs share the pseudo-host "local").
    public var host: String { url.host ?? "local" }
}
