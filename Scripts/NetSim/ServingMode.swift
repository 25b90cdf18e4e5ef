import Synchronization

/// How the hosts answer right now (issue #36's steady-state runs), switched between runs through the control
/// server's `/mode/NAME`:
/// - `normal`: every feed's file with its validators, honoured (304 when they match);
/// - `unconditional`: the same file and validators, never honoured: every feed sent whole, unchanged;
/// - `changed`: feeds with a `changedFile` serve it instead (one new item at the top, so new validators too), and
///   keep serving it in every mode after (the feed gained the item for good);
/// - `mixed`: feeds marked `mixed: "none"` send no validators and honour none; those marked `"stamped"` also serve
///   their `stampedFiles` in turn, one per request (the same feed with another `lastBuildDate` each time).
final class ServingMode: Sendable {
    enum Mode: String, Sendable {
        case normal, unconditional, changed, mixed
    }

    /// What one request is answered with.
    struct Served {
        var file: String
        /// ETag and Last-Modified are sent.
        var sendsValidators: Bool
        /// A matching If-None-Match or If-Modified-Since is answered 304.
        var honoursValidators: Bool
    }

    private struct State {
        var mode = Mode.normal
        /// The `changed` mode was used: feeds with a `changedFile` serve it from then on.
        var gained = false
        /// Requests per stamped feed, to rotate its files.
        var stampedRequests: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// The process's one mode.
    static let shared = ServingMode()

    /// Switches the mode; false for a name that is not one.
    func set(_ name: String) -> Bool {
        guard let mode = Mode(rawValue: name) else { return false }
        state.withLock {
            $0.mode = mode
            if mode == .changed { $0.gained = true }
        }
        return true
    }

    /// What `feed` is answered with now; nil when it serves no file (a fixed status).
    func served(_ feed: Layout.Feed) -> Served? {
        guard let original = feed.file else { return nil }
        return state.withLock { state in
            let file = state.gained ? feed.changedFile ?? original : original
            switch state.mode {
            case .normal:
                return Served(file: file, sendsValidators: true, honoursValidators: true)
            case .unconditional:
                return Served(file: file, sendsValidators: true, honoursValidators: false)
            case .changed:
                return Served(file: file, sendsValidators: true, honoursValidators: true)
            case .mixed:
                switch feed.mixed {
                case "none":
                    return Served(file: file, sendsValidators: false, honoursValidators: false)
                case "stamped":
                    let files = feed.stampedFiles ?? [file]
                    let turn = state.stampedRequests[feed.path, default: 0]
                    state.stampedRequests[feed.path] = turn + 1
                    return Served(
                        file: files[turn % max(1, files.count)], sendsValidators: false, honoursValidators: false)
                default:
                    return Served(file: file, sendsValidators: true, honoursValidators: true)
                }
            }
        }
    }
}
