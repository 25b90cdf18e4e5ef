import Foundation

/// Generates small, valid RSS 2.0 podcast feeds for the tests (written here, never copied from anywhere).
enum FeedFactory {
    /// One `<item>`.
    struct Item {
        var guid: String
        var title: String
        var enclosure: String? = nil
        var extra: String = ""
    }

    /// A whole RSS document.
    static func rss(title: String, items: [Item], channelExtra: String = "") -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd">
            <channel>
            <title>\(title)</title>
            <link>https://example.org/show</link>
            <description>A test show</description>
            \(channelExtra)

            """
        for item in items {
            text += "<item><guid isPermaLink=\"false\">\(item.guid)</guid><title>\(item.title)</title>"
            text += "<pubDate>Mon, 06 May 2024 10:00:00 +0000</pubDate>"
            if let enclosure = item.enclosure {
                text += "<enclosure url=\"\(enclosure)\" length=\"1000\" type=\"audio/mpeg\"/>"
            }
            text += item.extra + "</item>\n"
        }
        return text + "</channel>\n</rss>\n"
    }

    /// A feed with `count` episodes `<prefix>-0 …`, each with an enclosure.
    static func numbered(title: String, prefix: String, count: Int, titleSuffix: String = "") -> String {
        rss(
            title: title,
            items: (0..<count).map {
                Item(
                    guid: "\(prefix)-\($0)", title: "Episode \($0)\(titleSuffix)",
                    enclosure: "https://cdn.example.org/\(prefix)/\($0).mp3")
            })
    }

    /// Bytes of a string.
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
}
