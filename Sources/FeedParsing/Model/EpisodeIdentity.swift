public import Foundation

/// How an episode's identity key is chosen, scoped to its feed.
///
/// In order: the trimmed `guid` (Atom `id`, RSS 1.0 `rdf:about`); else the first enclosure URL; else the link; else
/// `"hash:"` and a 64-bit FNV-1a hash (hex) of the title and the published date (RFC 3339). The key is stable across
/// runs and machines, so the store can tell a new episode from a known one.
public enum EpisodeIdentity {
    /// The identity key from an episode's fields.
    public static func key(guid: String?, enclosureURL: URL?, link: URL?, title: String?, published: Date?) -> String {
        key(
            guid: guid, enclosureURLString: enclosureURL?.absoluteString, linkString: link?.absoluteString,
            title: title, published: published)
    }

    /// The identity key from an episode's fields, URLs given as their absolute text.
    public static func key(
        guid: String?, enclosureURLString enclosureURL: String?, linkString link: String?, title: String?,
        published: Date?
    ) -> String {
        if let guid, !guid.isEmpty { return guid }
        if let enclosureURL { return enclosureURL }
        if let link { return link }
        var hash = FNV1a()
        hash.mix((title ?? "").utf8)
        hash.mix(0x1F)
        hash.mix((published.map { RFC3339.string(from: $0) } ?? "").utf8)
        let hex = String(hash.value, radix: 16)
        return "hash:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
