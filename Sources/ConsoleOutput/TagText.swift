import EpisodeDownloads
import FeedParsing
import RefreshEngine

/// The lines and objects for the tags written into downloaded files (`podfresh set FEED --tags on|merge`): every
/// feed-supplied text goes through ``TerminalText/sanitize(_:)``.
enum TagText {
    private static func safe(_ text: String) -> String { TerminalText.sanitize(text) }

    /// `tagged     Feed: Title: ID3v2.4 tags (with cover)`, a container left untouched, or (for standard error) why
    /// the tags were not written.
    static func line(_ outcome: TagOutcome) -> (text: String, isError: Bool) {
        let name = DownloadText.name(outcome.target)
        switch outcome.result {
        case .tagged(let format, let withImage):
            return ("tagged     \(name): \(formatName(format)) tags" + (withImage ? " (with cover)" : ""), false)
        case .notTaggable(let container):
            let what = container.map { containerName($0) + " file" } ?? "a file of a format podfresh does not recognise"
            return (
                "not tagged \(name): \(what) takes no tags podfresh writes (MP3 and MP4/M4A do); left as downloaded",
                false
            )
        case .failed(let error):
            return ("\(name): tags not written: \(cause(error)); the file is kept as downloaded", true)
        }
    }

    /// "an Ogg", "a FLAC", … for a ``MediaContainer`` raw value.
    static func containerName(_ container: String) -> String {
        switch container {
        case "ogg": "an Ogg"
        case "flac": "a FLAC"
        case "wav": "a WAV"
        case "matroska": "a Matroska/WebM"
        case "aac": "an AAC (ADTS)"
        case "mpeg-ts": "an MPEG-TS"
        default: "a " + container
        }
    }

    static func formatName(_ format: String) -> String {
        switch format {
        case "id3v2.4": "ID3v2.4"
        case "mp4": "MP4"
        default: format
        }
    }

    /// Why tagging failed, in words.
    static func cause(_ error: TagWriteError) -> String {
        switch error.cause {
        case .file(let operation, let path, let reason, let diskFull):
            return "could not \(operation) \(safe(path)): \(safe(reason))" + (diskFull ? " (the disk is full)" : "")
        case .malformed(let path, let detail):
            return "\(safe(path)) is not a well-formed file: \(safe(detail))"
        case .changedMeanwhile(let path):
            return "\(safe(path)) changed while it was being tagged, so it was left alone"
        case .partExists(let path):
            return "\(safe(path)) is there already and podfresh did not create it now; remove it to tag later files"
        case .unsupportedLayout(let path, let detail):
            return "\(safe(path)) cannot be tagged without rewriting its media: \(safe(detail))"
        }
    }

    /// `tagged`, `not_taggable` and `tag_failed` objects.
    static func json(_ outcome: TagOutcome) -> [(String, JSONValue)] {
        var fields: [(String, JSONValue)] = [
            ("feed_id", .int(Int(outcome.target.feed.id))), ("id", .string(outcome.target.episodeKey)),
            ("title", .string(outcome.target.title)), ("file", .string(outcome.target.file)),
        ]
        switch outcome.result {
        case .tagged(let format, let withImage):
            fields.insert(("event", .string("tagged")), at: 0)
            fields += [("format", .string(format)), ("cover", .bool(withImage))]
        case .notTaggable(let container):
            fields.insert(("event", .string("not_taggable")), at: 0)
            fields += [("container", .string(container))]
        case .failed(let error):
            fields.insert(("event", .string("tag_failed")), at: 0)
            fields += [("kind", .string(error.kind)), ("message", .string(cause(error)))]
        }
        return fields
    }
}
