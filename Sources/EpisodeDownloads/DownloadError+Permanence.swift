// Which download failures are a broken link: the same URL fails the same way next time, so the download waits
// (FeedModels' `DownloadBackoff`) instead of being fetched on every run. A new ``DownloadError/Kind`` says here which
// it is: the switch has no default, so the compiler asks.

extension DownloadError {
    /// Whether a failure of this kind is a broken link, a permanent failure: the URL is gone or serves something that
    /// is not the media. A failure that may pass by itself (a cut connection, a timeout, a full disk, a 5xx) is not.
    public var isPermanent: Bool {
        switch kind {
        case .httpStatus: return status.map(Self.permanentStatuses.contains) ?? false
        // An empty body or an encoding podfresh cannot decode is what that URL serves, like a page instead of media.
        case .notMedia, .emptyBody, .unsupportedEncoding, .unsupportedScheme, .tooManyRedirects, .tooLarge,
            .wrongContent:
            return true
        case .shortBody, .noResponse, .stalled, .tooSlow, .timeout, .notEnoughSpace, .diskFull, .io, .transport:
            return false
        // A live stream may become an episode when it ends (its playlist gets `#EXT-X-ENDLIST`); encryption and
        // byte ranges stay what they are.
        case .hls:
            if case .hlsLive = cause { return false }
            return true
        }
    }

    /// HTTP statuses that say the media is not there and will not be: 404 Not Found, 410 Gone.
    public static let permanentStatuses: Set<Int> = [404, 410]
}
