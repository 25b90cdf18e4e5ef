import EpisodeDownloads
import FeedModels
import FeedParsing
import Foundation
import Measures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The files beside an episode's media (`podfresh set FEED --extras on`): its transcripts, its chapters and its
/// artwork (the episode's image, else the feed's), each named after the media file (`Ep 1.mp3` → `Ep 1.vtt`,
/// `Ep 1.chapters.json`, `Ep 1.jpg`; several transcripts add their language or a number: `Ep 1.en.vtt`).
///
/// Each is fetched after the media file is complete, through the same network and limits, complete or absent
/// (``MediaDownloader/fetchExtra(_:)``), and recorded in the episode's download record. A failure never touches the
/// media: it is published, recorded, and waits the broken-link backoff (``DownloadBackoff``) before the next try
/// (`download --retry` tries now). A later run fetches what is missing of episodes already on disk.
struct EpisodeExtras: Sendable {
    let store: any FeedRepositories
    let downloader: MediaDownloader
    let publish: @Sendable (DownloadEvent) -> Void
    let now: @Sendable () -> Date

    /// One file the feed offers beside an episode.
    struct Wanted: Sendable, Hashable {
        var kind: ExtraFile.Kind
        var url: URL
        var declaredType: String?
        /// Added to the media file's base name before the extension (`.en` for a second transcript).
        var suffix: String
    }

    /// What `episode` offers: its transcripts (http(s) only), its chapters, and its image or else the feed's.
    static func wanted(_ episode: ParsedEpisode, feedImage: URL?) -> [Wanted] {
        var wanted: [Wanted] = []
        let transcripts = episode.transcripts.filter { Self.isHTTP($0.url) }
        let labels = transcripts.enumerated().map { index, transcript in
            transcript.language.flatMap { Self.safeLabel($0) } ?? String(index + 1)
        }
        for (index, transcript) in transcripts.enumerated() {
            var suffix = ""
            if transcripts.count > 1 {
                let label = labels[index]
                suffix = "." + (labels.filter { $0 == label }.count > 1 ? "\(label)-\(index + 1)" : label)
            }
            wanted.append(Wanted(kind: .transcript, url: transcript.url, declaredType: transcript.type, suffix: suffix))
        }
        if let chapters = episode.chapters, isHTTP(chapters) {
            wanted.append(Wanted(kind: .chapters, url: chapters, declaredType: nil, suffix: ""))
        }
        if let image = episode.image ?? feedImage, isHTTP(image) {
            wanted.append(Wanted(kind: .image, url: image, declaredType: nil, suffix: ""))
        }
        return wanted
    }

    /// True when some file `wanted` offers is neither saved in `stored` nor waiting at `now` (unless `retry`).
    static func missing(_ wanted: [Wanted], stored: [ExtraFile], now: Date, retry: Bool) -> Bool {
        wanted.contains { want in
            guard let file = stored.first(where: { $0.kind == want.kind && $0.url == want.url }) else { return true }
            if file.isSaved { return false }
            return retry || !file.isSettled(at: now)
        }
    }

    /// Fetches the files beside `episode` (its media complete at `mediaPath`) that are not saved yet and not waiting
    /// (unless `retry`), records them, and publishes each one's outcome.
    /// - Returns: How many were saved and how many failed.
    @discardableResult
    func fetch(
        _ episode: StoredEpisode, of subscription: Subscription, mediaPath: String, target: DownloadTarget,
        retry: Bool
    ) async -> (saved: Int, failed: Int) {
        let wanted = Self.wanted(episode.episode, feedImage: subscription.image)
        guard !wanted.isEmpty else { return (0, 0) }
        let media = URL(fileURLWithPath: mediaPath)
        let base = media.deletingPathExtension()
        var files: [ExtraFile]
        do {
            files = try await store.extraFiles(subscriptionID: subscription.id)[episode.key] ?? []
        } catch {
            return (0, 0)
        }
        var saved = 0
        var failed = 0
        var changed = false
        for want in wanted {
            if Task.isCancelled { break }
            let index = files.firstIndex { $0.kind == want.kind && $0.url == want.url }
            let current = index.map { files[$0] } ?? ExtraFile(kind: want.kind, url: want.url)
            if current.isSaved || (!retry && current.isSettled(at: now())) { continue }
            let request = ExtraRequest(
                url: want.url, kind: Self.kind(want.kind), declaredType: want.declaredType,
                base: URL(fileURLWithPath: base.path + want.suffix))
            var next: ExtraFile
            do {
                let extra = try await downloader.fetchExtra(request)
                next = current
                next.path = extra.file.path
                next.bytes = extra.byteCount
                next.failures = 0
                next.retryAfter = nil
                next.lastError = nil
                saved += 1
                publish(
                    .extraSaved(
                        ExtraOutcome(
                            target: target, kind: want.kind, url: want.url, file: extra.file.path,
                            bytes: extra.byteCount)))
            } catch is CancellationError {
                break
            } catch {
                var failure: DownloadFailure
                if let error = error as? DownloadError {
                    failure = DownloadFailure(.download(error))
                    failure.permanent = error.isPermanent
                } else {
                    failure = DownloadFailure(.unexpected(url: want.url, reason: ErrorWords.describe(error)))
                }
                let message = failure.storedCause
                next = current.failed(error: message, at: now())
                failure.failures = next.failures
                failure.retryAfter = next.retryAfter
                failure.isRepeat = current.failures > 0 && current.lastError == message
                failed += 1
                publish(.extraFailed(ExtraOutcome(target: target, kind: want.kind, url: want.url, failure: failure)))
            }
            if let index { files[index] = next } else { files.append(next) }
            changed = true
        }
        if changed {
            let list = files
            // Recorded even when the run was stopped: a saved file must be known as podfresh's.
            _ = try? await Task {
                try await store.recordExtraFiles(subscriptionID: subscription.id, episodeKey: episode.key, list)
            }.value
        }
        return (saved, failed)
    }

    /// Deletes the saved files beside episode `episodeKey` (only those its record lists: files podfresh wrote) and
    /// forgets them, when its media file goes (`--keep`, `--delete-played`).
    static func remove(subscriptionID: Int64, episodeKey: String, store: any DownloadRepository) async {
        guard let files = try? await store.extraFiles(subscriptionID: subscriptionID)[episodeKey], !files.isEmpty
        else { return }
        for file in files {
            if let path = file.path { _ = unlink(path) }
        }
        _ = try? await store.recordExtraFiles(subscriptionID: subscriptionID, episodeKey: episodeKey, [])
    }

    private static func kind(_ kind: ExtraFile.Kind) -> ExtraKind {
        switch kind {
        case .transcript: .transcript
        case .chapters: .chapters
        case .image: .image
        }
    }

    private static func isHTTP(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return (scheme == "http" || scheme == "https") && url.host?.isEmpty == false
    }

    /// A language tag usable in a file name (letters, digits and `-`, at most 16), or nil.
    private static func safeLabel(_ language: String) -> String? {
        let label = language.trimmingCharacters(in: .whitespaces).lowercased()
        guard !label.isEmpty, label.count <= 16,
            label.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
        else { return nil }
        return label
    }
}
