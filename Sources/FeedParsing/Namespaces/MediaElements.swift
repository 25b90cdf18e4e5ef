import Foundation

/// Media RSS (`media:`) elements in an episode: `media:content` files and images, and `media:thumbnail`.
///
/// Stateless: the handlers write the episode builder of the ``SAXState`` they are given.
enum MediaElements {
    static func endEpisodeElement(_ el: Name, _ frame: SAXState.Frame, _ state: inout SAXState) {
        switch el {
        case .content:
            endContent(frame, &state)
        case .thumbnail:
            if state.episode.mediaImage == nil, let url = state.attribute(.url, of: frame) {
                state.episode.mediaImage = state.resolve(url, base: frame.base)
            }
        default: break
        }
    }

    /// `media:content`: an enclosure, or the episode's image when it is one (`medium="image"` or an `image/*` type).
    @inline(never)
    static func endContent(_ frame: SAXState.Frame, _ state: inout SAXState) {
        guard let url = state.attribute(.url, of: frame) else { return }
        let medium = state.attribute(.medium, of: frame)?.trimmedText.lowercased()
        let type = state.attribute(.type, of: frame)?.trimmedText.lowercased()
        if medium == "image" || (medium == nil && type?.hasPrefix("image/") == true) {
            // An image, not a media file: the episode's image when it has no itunes:image. (The identity key
            // still counts it, as it did when it was listed as an enclosure.)
            guard let resolved = state.resolve(url, base: frame.base) else { return }
            if state.episode.mediaImage == nil { state.episode.mediaImage = resolved }
            if state.episode.identityMediaURL == nil { state.episode.identityMediaURL = resolved }
            return
        }
        state.addEnclosure(
            url, length: state.attribute(.fileSize, of: frame), type: state.attribute(.type, of: frame),
            base: frame.base, media: true)
    }

    /// A `media:thumbnail` inside the item's `media:group` or `media:content` (directly inside the item is a
    /// direct child, read anyway).
    static func isThumbnail(_ ns: Namespace, _ el: Name, episodeDepth: Int, frames: [SAXState.Frame]) -> Bool {
        let depth = frames.count
        guard ns == .media, el == .thumbnail, depth > episodeDepth + 1, depth <= episodeDepth + 3 else { return false }
        for index in (episodeDepth + 1)..<depth {
            let ancestor = frames[index]
            guard ancestor.namespace == .media, ancestor.name == .group || ancestor.name == .content else {
                return false
            }
        }
        return true
    }
}
