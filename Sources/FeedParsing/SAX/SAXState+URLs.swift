import Foundation

extension SAXState {
    func baseURL(_ index: Int32) -> URL? { index < 0 ? documentURL : bases[Int(index)] }

    /// Resolves a URL from the feed: trims it, undoes libxml2's `&#38;`, resolves it against `xml:base` or the
    /// document's URL, and keeps only http(s) (and file URLs inside a local file's feed). Returns the absolute text.
    mutating func resolve(_ raw: String, base: Int32, keepFile: Bool = false, quiet: Bool = false) -> String? {
        var raw = raw
        let plain = raw.withUTF8 { URLText.isPlainHTTP($0) }
        if plain { return raw }
        return resolveURL(raw, base: base, keepFile: keepFile, quiet: quiet)?.absoluteString
    }

    /// ``resolve(_:base:keepFile:)`` through Foundation: for URLs that are not plain, and the few channel-level URLs
    /// that the model keeps as `URL`.
    /// With `quiet`, a URL with another scheme is counted in `quietlyIgnoredSchemes` instead of warned about.
    mutating func resolveURL(_ raw: String, base: Int32, keepFile: Bool = false, quiet: Bool = false) -> URL? {
        let text = AmpersandReferences.undo(TextCleaning.clean(raw))
        guard !text.isEmpty, text.utf8.count <= 8192 else { return nil }
        var url = URL(string: text)
        if url == nil, let escaped = text.addingPercentEncoding(withAllowedCharacters: Self.urlAllowed) {
            url = URL(string: escaped)
        }
        guard var resolved = url else { return nil }
        if resolved.scheme == nil {
            guard let baseURL = baseURL(base),
                let absolute = URL(string: resolved.relativeString, relativeTo: baseURL)?.absoluteURL
            else {
                return nil
            }
            resolved = absolute
        }
        let scheme = resolved.scheme?.lowercased() ?? ""
        if scheme == "http" || scheme == "https" { return resolved.host?.isEmpty == false ? resolved : nil }
        if scheme == "file", keepFile || documentIsFile { return resolved }
        if quiet {
            quietlyIgnoredURLs += 1
            if !quietlyIgnoredSchemes.contains(scheme), quietlyIgnoredSchemes.count < 5 {
                quietlyIgnoredSchemes.append(scheme)
            }
            return nil
        }
        warn(.ignoredScheme(scheme))
        return nil
    }

    static let urlAllowed: CharacterSet = {
        var set = CharacterSet.urlQueryAllowed
        set.insert(charactersIn: "#%")
        return set
    }()
}
