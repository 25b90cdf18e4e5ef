import CLibXML2
import Foundation

/// Text capture, and the captured text read as the value a field needs.
extension SAXState {
    // MARK: - Capture

    @inline(__always)
    mutating func characters(_ bytes: UnsafePointer<xmlChar>, _ length: Int) {
        guard captureDepth >= 0 else { return }
        let room = options.maxFieldBytes - (text.count - captureStart)
        if length > room {
            if room > 0 { text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: room)) }
            if !fieldTruncated {
                fieldTruncated = true
                warn(.fieldCut(limit: options.maxFieldBytes))
            }
            return
        }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: length))
    }

    /// Text from a CDATA section: kept as it is, and marked so that one-line text decodes the HTML entities it holds.
    mutating func cdata(_ bytes: UnsafePointer<xmlChar>, _ length: Int) {
        guard captureDepth >= 0 else { return }
        capturedCDATA = true
        characters(bytes, length)
    }

    mutating func appendText(_ string: String) {
        guard captureDepth >= 0, text.count - captureStart + string.utf8.count <= options.maxFieldBytes else { return }
        text.append(contentsOf: string.utf8)
    }

    /// The element's text, cleaned of forbidden characters and trimmed; nil when the element captured none.
    var value: String? {
        guard hasValue else { return nil }
        return text.withUnsafeBufferPointer {
            TextCleaning.string(from: UnsafeBufferPointer(rebasing: $0[captureStart...]), collapse: false)
        }
    }

    /// The element's text as one line (whitespace runs collapsed); nil when it captured none. Text from a CDATA section
    /// also has its HTML character references decoded (`&#8364;` → `€`): a title is plain text, and a feed that wraps
    /// it in CDATA still writes its special characters as HTML does.
    var line: String? {
        guard hasValue else { return nil }
        return text.withUnsafeBufferPointer {
            let captured = UnsafeBufferPointer(rebasing: $0[captureStart...])
            if capturedCDATA, captured.contains(0x26) {
                return TextCleaning.decodingReferences(captured) { TextCleaning.string(from: $0, collapse: true) }
            }
            return TextCleaning.string(from: captured, collapse: true)
        }
    }

    /// ``value``, or nil when empty.
    var nonEmptyValue: String? { value.flatMap(nonEmpty) }
    /// ``line``, or nil when empty.
    var nonEmptyLine: String? { line.flatMap(nonEmpty) }

    /// ``nonEmptyValue`` as a ``DeferredText``: the trimmed bytes stay in `text`, and are checked and made a string
    /// only if the episode uses them.
    mutating func deferredValue() -> DeferredText? {
        guard hasValue else { return nil }
        let range = text.withUnsafeBufferPointer { TextCleaning.trimmedRange($0, captureStart..<$0.count) }
        guard !range.isEmpty else { return nil }
        // Bytes kept for the open episode stay until it ends, even when a repeated element replaces the field; past
        // twice the field limit the text becomes a string at once, so memory stays bounded by the field limit.
        if fieldTruncated || captureStart > 2 * options.maxFieldBytes { return nonEmptyValue.map { .string($0) } }
        keepCapturedText = true
        return .bytes(range)
    }

    /// The element's text, trimmed of ASCII whitespace, as bytes.
    func withTrimmedText<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        text.withUnsafeBufferPointer {
            body(UnsafeBufferPointer(rebasing: $0[TextCleaning.trimmedRange($0, captureStart..<$0.count)]))
        }
    }

    // MARK: - Values

    /// The element's text as a date; nil with a warning when it cannot be read, nil without one when empty.
    mutating func date() -> Date? {
        if let quick = withTrimmedText(FeedDate.parseCommon(_:)) { return quick }
        guard let value, !value.isEmpty else { return nil }
        if let date = FeedDate.parse(value) { return date }
        warn(.unreadableDate(text: Self.snippet(value), attribute: nil))
        return nil
    }

    /// The element's text as a date, with the zone offset it was written in (nil when it names none); a nil date
    /// with a warning when it cannot be read, without one when empty. The common shapes give both in one pass.
    mutating func writtenDate() -> (date: Date?, offset: Int?) {
        if let quick = withTrimmedText(FeedDate.parseCommonWritten(_:)) { return (quick.date, quick.offset) }
        guard let date = date() else { return (nil, nil) }
        return (date, withTrimmedText(FeedDate.writtenOffset(_:)))
    }

    /// The element's text as an episode or season number.
    func number() -> Int? {
        guard hasValue else { return nil }
        let quick: Int?? = withTrimmedText { bytes in
            guard !bytes.isEmpty, bytes.count <= 6 else { return .none }
            var result = 0
            for byte in bytes {
                guard byte >= 0x30 && byte <= 0x39 else { return .none }
                result = result * 10 + Int(byte - 0x30)
            }
            return .some(result)
        }
        if let quick { return quick }
        return value.flatMap(Self.number)
    }

    /// The element's text resolved as a URL (see ``resolve(_:base:keepFile:)``), without an intermediate string when
    /// it is a plain absolute http(s) URL.
    mutating func resolveText(base: Int32) -> String? {
        let plain: String? = withTrimmedText { bytes in
            URLText.isPlainHTTP(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
        }
        if let plain { return plain }
        return value.flatMap { resolve($0, base: base) }
    }
}
