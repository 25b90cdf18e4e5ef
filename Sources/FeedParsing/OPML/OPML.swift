import CLibXML2
public import Foundation

/// One subscription in an OPML file: `<outline text="…" xmlUrl="https://…" htmlUrl="…"/>`.
public struct OPMLOutline: Sendable, Hashable {
    /// The outline's name: `text` (required by OPML 2.0), else `title`.
    public var title: String?
    /// The feed (`xmlUrl`).
    public var xmlURL: URL?
    /// The show's website (`htmlUrl`).
    public var htmlURL: URL?

    public init(title: String?, xmlURL: URL?, htmlURL: URL?) {
        self.title = title
        self.xmlURL = xmlURL
        self.htmlURL = htmlURL
    }
}

/// Reading and writing OPML subscription lists (OPML 1.0 and 2.0).
public enum OPML {
    /// Every outline with an `xmlUrl` (attribute names matched case-insensitively), nested outlines flattened,
    /// in document order. Entities are never expanded from a DTD and nothing is loaded from the network.
    ///
    /// - Throws: ``FeedParseError`` when the document is empty, not XML, or its root is not `<opml>`.
    public static func parse(_ bytes: [UInt8]) throws -> [OPMLOutline] {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            throw FeedParseError(.emptySubscriptionList)
        }
        _ = libxml2Ready
        let state = OPMLState()
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localname, _, _, _, _, attributeCount, _, attributes in
            guard let context, let localname else { return }
            let state = Unmanaged<OPMLState>.fromOpaque(context).takeUnretainedValue()
            state.startElement(String(cString: localname), attributeCount: Int(attributeCount), attributes: attributes)
        }
        let opaque = Unmanaged.passUnretained(state).toOpaque()
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue)
        withExtendedLifetime(state) {
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                    guard let context = xmlCreatePushParserCtxt(&handler, opaque, nil, 0, nil) else { return }
                    xmlCtxtUseOptions(context, options)
                    _ = xmlParseChunk(context, chars, Int32(clamping: buffer.count), 1)
                    xmlFreeParserCtxt(context)
                }
            }
        }
        guard let root = state.root else {
            throw FeedParseError(.subscriptionListNotXML)
        }
        guard root.lowercased() == "opml" else {
            throw FeedParseError(.rootNotOPML(root: root))
        }
        return state.outlines
    }

    /// An OPML 2.0 document listing `outlines` (XML-escaped, UTF-8).
    public static func document(title: String, outlines: [OPMLOutline], dateCreated: Date = Date()) -> String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0">
              <head>
                <title>\(escape(title))</title>
              </head>
              <body>

            """
        for outline in outlines {
            guard let url = outline.xmlURL else { continue }
            let name = escape(outline.title ?? url.absoluteString)
            text +=
                "    <outline type=\"rss\" text=\"\(name)\" title=\"\(name)\" xmlUrl=\"\(escape(url.absoluteString))\""
            if let html = outline.htmlURL { text += " htmlUrl=\"\(escape(html.absoluteString))\"" }
            text += "/>\n"
        }
        text += "  </body>\n</opml>\n"
        return text
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                // XML 1.0 cannot carry most C0 controls at all: drop them.
                if CharacterRules.isXMLForbiddenControl(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

/// What the OPML SAX callbacks collect. Used by one parse on one thread.
private final class OPMLState {
    var root: String?
    var outlines: [OPMLOutline] = []

    func startElement(_ name: String, attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        if root == nil { root = name }
        guard name.lowercased() == "outline", let attributes else { return }
        var values: [String: String] = [:]
        for index in 0..<attributeCount {
            let base = index * 5
            guard let localname = attributes[base], let start = attributes[base + 3], let end = attributes[base + 4]
            else { continue }
            let value = UnsafeBufferPointer(start: start, count: end - start)
            values[String(cString: localname).lowercased()] = AmpersandReferences.undo(value)
        }
        guard let feed = values["xmlurl"]?.trimmedText, !feed.isEmpty else { return }
        // OPML 2.0 requires `text` and makes `title` optional, so `text` is the outline's name; `title` is the
        // fallback for files that carry only it.
        let title = [values["text"], values["title"]].lazy.compactMap { $0?.trimmedText }.first { !$0.isEmpty }
        outlines.append(
            OPMLOutline(
                title: title,
                xmlURL: URL(string: feed),
                htmlURL: values["htmlurl"].flatMap { URL(string: $0.trimmedText) }))
    }
}
