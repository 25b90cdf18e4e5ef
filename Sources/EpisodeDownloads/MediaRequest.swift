public import Foundation
public import HTTPTransport
public import Measures

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
    /// The episode's duration in seconds as the feed declares it (`itunes:duration`): an HLS episode whose playlist
    /// lasts otherwise is refused (``MediaDownloader/hlsDurationTolerance(declared:)``). Unused for a media file.
    public var declaredDuration: Double?

    /// A request for `url` to be saved as `destination`.
    public init(
        url: URL, destination: URL, etag: String? = nil, lastModified: String? = nil, announcedType: String? = nil,
        lengthHint: Int64? = nil, declaredDuration: Double? = nil
    ) {
        self.url = url
        self.destination = destination
        self.etag = etag
        self.lastModified = lastModified
        self.announcedType = announcedType
        self.lengthHint = lengthHint
        self.declaredDuration = declaredDuration
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
    /// Why a resume was given up and the file downloaded again from its first byte with one plain GET.
    public enum Restart: Sendable, Equatable {
        /// The 206 carried another validator than the partial file was started with (the file changed, and the
        /// server ignored `If-Range`), or none.
        case validatorChanged(was: String, now: String?)
        /// The 206 did not start at the byte asked for.
        case wrongStart(asked: Int64, got: Int64)
        /// The 206's total length differs from the partial file's (or it gave none).
        case totalChanged(was: Int64, now: Int64?)
        /// The 206 came compressed: a range of the compressed bytes cannot continue the decoded ones.
        case encodedRange(String)
        /// The server answered 416: the partial file is as long as the file, or longer.
        case rangeNotSatisfiable
    }

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
    /// The container the file's first bytes show, nil when none was recognised.
    public var container: MediaContainer?
    /// The `Content-Encoding` the body came in and was decoded from (gzip, deflate), nil for identity.
    public var decodedFrom: String?
    /// Why a resume was given up, when it was.
    public var restarted: Restart?

    /// A result.
    public init(
        file: URL, finalURL: URL, byteCount: Int64, resumedFrom: Int64, etag: String?, lastModified: String?,
        contentType: String?, container: MediaContainer? = nil, decodedFrom: String? = nil, restarted: Restart? = nil
    ) {
        self.file = file
        self.finalURL = finalURL
        self.byteCount = byteCount
        self.resumedFrom = resumedFrom
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.container = container
        self.decodedFrom = decodedFrom
        self.restarted = restarted
    }
}

/// Limits for media downloads: the same named limits as a feed fetch (``TransferLimits``), with values for media.
public struct DownloadConfiguration: Sendable {
    /// The User-Agent header.
    public var userAgent: String
    /// Redirects followed before giving up (tracking prefixes chain several).
    public var maxRedirects: Int
    /// Time allowed to look the host up, and to connect.
    public var connectTimeout: Duration
    /// A download fails when the server has not begun to answer a request within this long (connecting included).
    public var firstByteTimeout: Duration
    /// A download fails as stalled when no byte of the body arrives for this long.
    public var stallTimeout: Duration
    /// The slowest average rate accepted over each window of the body, so a server that trickles a byte now and then
    /// (and so never stalls) still fails instead of holding a download slot for hours; nil for none. The default,
    /// 4 000 bytes/s over 60 s, ends a one-byte-a-second trickle after a minute.
    public var minimumRate: MinimumRate?
    /// A download fails when it takes longer than this altogether: a last resort behind the others.
    public var totalTimeout: Duration
    /// Room left free beyond a file whose length is known.
    public var freeSpaceMargin: FreeSpace.Margin
    /// The largest decoded/encoded size ratio accepted when a server compresses media anyway (gzip, deflate).
    public var decompressionRatioLimit: Int
    /// The clock the limits are measured on (a manual one in tests).
    public var clock: AppClock = .system

    /// The default minimum rate: 4 000 bytes/s over every 60 s.
    public static let defaultMinimumRate = MinimumRate(bytesPerSecond: 4_000, window: .seconds(60))

    /// Limits; the defaults suit a podcast episode on a slow line.
    public init(
        userAgent: String = "podfresh", maxRedirects: Int = 10, connectTimeout: Duration = .seconds(15),
        firstByteTimeout: Duration = .seconds(30), stallTimeout: Duration = .seconds(60),
        minimumRate: MinimumRate? = DownloadConfiguration.defaultMinimumRate,
        totalTimeout: Duration = .seconds(6 * 3600), freeSpaceMargin: FreeSpace.Margin = .standard,
        decompressionRatioLimit: Int = 100
    ) {
        self.userAgent = userAgent
        self.maxRedirects = maxRedirects
        self.connectTimeout = connectTimeout
        self.firstByteTimeout = firstByteTimeout
        self.stallTimeout = stallTimeout
        self.minimumRate = minimumRate
        self.totalTimeout = totalTimeout
        self.freeSpaceMargin = freeSpaceMargin
        self.decompressionRatioLimit = decompressionRatioLimit
    }

    /// The limits a download runs under, each named in the error it causes.
    public var limits: TransferLimits {
        TransferLimits(
            nameLookup: connectTimeout, connect: connectTimeout, firstByte: firstByteTimeout, stall: stallTimeout,
            minimumRate: minimumRate, total: totalTimeout)
    }
}
