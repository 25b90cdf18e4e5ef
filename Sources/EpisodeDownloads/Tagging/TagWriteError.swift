/// Why a downloaded file's tags were not written. The file is then exactly as it was downloaded.
public struct TagWriteError: Error, Sendable, Hashable {
    public enum Cause: Sendable, Hashable {
        /// The file could not be opened, read, written, synced or renamed (`operation` says which).
        case file(operation: String, path: String, reason: String, diskFull: Bool)
        /// The file's structure is not what its container says (a box or tag runs past the end, say).
        case malformed(path: String, detail: String)
        /// The file changed, or was replaced, while the tags were written: it is not podfresh's to rewrite.
        case changedMeanwhile(path: String)
        /// `NAME.tags.part` is there already, and podfresh did not create it in this attempt.
        case partExists(path: String)
        /// The MP4 cannot be tagged without rewriting more than its tags: `detail` says why (fragmented, or its
        /// offsets would pass 4 GB).
        case unsupportedLayout(path: String, detail: String)
    }

    public var cause: Cause

    public init(_ cause: Cause) { self.cause = cause }

    /// A stable name for the cause (JSON `kind`).
    public var kind: String {
        switch cause {
        case .file(_, _, _, let diskFull): diskFull ? "disk_full" : "io"
        case .malformed: "malformed"
        case .changedMeanwhile: "changed_meanwhile"
        case .partExists: "part_exists"
        case .unsupportedLayout: "unsupported_layout"
        }
    }
}
