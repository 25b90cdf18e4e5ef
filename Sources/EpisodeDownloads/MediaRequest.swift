public import Foundation
public import HTTPTransport

/// One media file to download: where from, where to, and what the caller knows about it already.
public struct MediaRequest: Sendable, Equatable {
    /// The enclosure URL (http or https).
    public var url: URL
    /// The final file, an absolute path already chosen (``FileNaming``). The download goes to ``partialFile`` beside
    /// it and is renamed to this only when complete.
    public var destination: URL
    /// The ETag the server sent with the bytes already in ``partialFile`` (for `If-Range`).
    public var etag: String?
    /// The Last-Modified the server sent with the bytes already in ``partialFile`` (for `If-Range` without an ETag).
    public var lastModified: String?
    /// The type the feed announced for the enclosure, e.g. `audio/mpeg`.
    public var announcedType: String?
    /// The feed's `length` attribute: often 0 or wrong, so only a hint for the free-space check.
    public var lengthHint: Int64?

    /// A request for `url` to be saved as `destination`.
    public init(
        url: URL, destination: URL, etag: String? = nil, lastModified: String? = nil, announcedType: String? = nil,
        lengthHint: Int64? = nil
    ) {
        self.url = url
        self.destination = destination
        self.etag = etag
        self.lastModified = lastModified
        self.announcedType = announcedType
        self.lengthHint = lengthHint
    }

    /// `NAME.part` beside ``destination``: where the bytes go until the download is complete.
    public var partialFile: URL { URL(fileURLWithPath: destination.path + ".part") }
}

/// How far a download has got, reported after each chunk written to disk.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes in the `.part` file so far, the resumed ones included.
    public var receivedBytes: Int64
    /// The whole file's length as the server announced it, when it did.
    public var expectedBytes: Int64?
    /// Where this transfer started (0 unless it resumed a `.part`).
    public var resumedFrom: Int64
    /// The bytes of the chunk just written (a chunk is never held after it is written).
    public var chunkBytes: Int

    /// A progress report.
    public init(receivedBytes: Int64, expectedBytes: Int64?, resumedFrom: Int64, chunkBytes: Int) {
        self.receivedBytes = receivedBytes
        self.expectedBytes = expectedBytes
        self.resumedFrom = resumedFrom
        self.chunkBytes = chunkBytes
    }
}

/// The server's answer to a media request, once accepted and before the body is written.
public struct MediaResponse: Sendable, Equatable {
    /// The URL the bytes come from, after redirects.
    public var finalURL: URL
    /// The media's ETag and Last-Modified: what a later `If-Range` needs to resume these bytes.
    public var etag: String?
    public var lastModified: String?
    /// The whole file's length as the server announced it, when it did.
    public var expectedBytes: Int64?
    /// Where the body starts in the file (0 unless a `.part` is resumed).
    public var resumedFrom: Int64
    /// The Content-Type the server sent.
    public var contentType: String?

    /// An answer.
    public init(
        finalURL: URL, etag: String?, lastModified: String?, expectedBytes: Int64?, resumedFrom: Int64,
        contentType: String?
    ) {
        self.finalURL = finalURL
        self.etag = etag
        self.lastModified = lastModified
        self.expectedBytes = expectedBytes
        self.resumedFrom = resumedFrom
        self.contentType = contentType
    }
}

/// A complete download: the file is on disk under its final name, fsynced.
public struct DownloadedMedia: Sendable, Equatable {
    /// The final file (the request's destination).
    public var file: URL
    /// The URL the bytes came from, after redirects.
    public var finalURL: URL
    /// The file's size, equal to the length the server announced.
    public var byteCount: Int64
    /// The offset this transfer resumed from (0 when it started from the beginning).
    public var resumedFrom: Int64
    /// The media's ETag, to store for a later `If-Range`.
    public var etag: String?
    /// The media's Last-Modified, to store for a later `If-Range`.
    public var lastModified: String?
    /// The Content-Type the server sent.
    public var contentType: String?

    /// A result.
    public init(
        file: URL, finalURL: URL, byteCount: Int64, resumedFrom: Int64, etag: String?, lastModified: String?,
        contentType: String?
    ) {
        self.file = file
        self.finalURL = finalURL
        self.byteCount = byteCount
        self.resumedFrom = resumedFrom
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
    }
}

/// Limits for media downloads.
public struct DownloadConfiguration: Sendable {
    /// The User-Agent header.
    public var userAgent: String
    /// Redirects followed before giving up (tracking prefixes chain several).
    public var maxRedirects: Int
    /// Time allowed to connect.
    public var connectTimeout: Duration
    /// A download fails as stalled when no byte arrives for this long (the progress timeout).
    public var stallTimeout: Duration
    /// A download fails when it takes longer than this altogether.
    public var totalTimeout: Duration
    /// Room left free beyond a file whose length is known.
    public var freeSpaceMargin: FreeSpace.Margin
    /// The slowest average rate accepted over a window, so a server that trickles a byte now and then (and so never
    /// stalls) still fails instead of holding a download slot for hours; nil for none.
    public var minimumRate: MinimumRate? = MinimumRate(bytesPerSecond: 4_000, window: .seconds(60))

    /// Limits; the defaults suit a podcast episode on a slow line.
    public init(
        userAgent: String = "podfresh", maxRedirects: Int = 10, connectTimeout: Duration = .seconds(15),
        stallTimeout: Duration = .seconds(60), totalTimeout: Duration = .seconds(6 * 3600),
        freeSpaceMargin: FreeSpace.Margin = .standard
    ) {
        self.userAgent = userAgent
        self.maxRedirects = maxRedirects
        self.connectTimeout = connectTimeout
        self.stallTimeout = stallTimeout
        self.totalTimeout = totalTimeout
        self.freeSpaceMargin = freeSpaceMargin
    }
}
