import FeedModels
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where the sync password lives, and how it is read from the user.
///
/// On SQLite it is a file beside the database, `<database>.sync-password`, created with mode 0600 (readable and
/// writable by the user alone) whatever the umask, written whole to a temporary file and renamed, so it is never
/// half-written. It is not in the database because the database is usually readable by others (0644 under the usual
/// umask) and travels with backups and `migrate --to`. On PostgreSQL it is kept in the `sync_account` row: every worker
/// of a fleet needs it, and whoever can read that database can already change everything in it.
enum SyncCredentials {
    /// The environment variable a password may come from.
    static let environmentVariable = "PODFRESH_SYNC_PASSWORD"

    /// The password file for the SQLite database at `databasePath`.
    static func passwordPath(forDatabaseAt databasePath: String) -> String { databasePath + ".sync-password" }

    /// A failure to keep or read the password, with the file.
    struct FileError: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "the sync password file \(path): \(reason)" }
    }

    /// Writes `password` to `path`, mode 0600, replacing what was there.
    static func write(_ password: String, to path: String) throws {
        let temporary = path + ".tmp-\(getpid())"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError(path: path, reason: String(cString: strerror(errno))) }
        // The mode given to open() is reduced by the umask; make it exactly 0600.
        fchmod(descriptor, 0o600)
        let bytes = Array(password.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor)
        close(descriptor)
        guard written == bytes.count, synced == 0 else {
            unlink(temporary)
            throw FileError(path: path, reason: "could not be written")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw FileError(path: path, reason: reason)
        }
    }

    /// The password in `path`; nil when there is no such file.
    static func read(from path: String) throws -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError(path: path, reason: "cannot be read")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Removes the file at `path`, if there is one.
    static func remove(at path: String) {
        unlink(path)
    }

    /// The password to set sync up with: `PODFRESH_SYNC_PASSWORD`, else asked on the terminal without echo; nil when
    /// neither is possible (no variable, standard input is not a terminal).
    static func passwordForSetUp(prompt: String, write: (String) -> Void) -> String? {
        if let password = ProcessInfo.processInfo.environment[environmentVariable], !password.isEmpty {
            return password
        }
        guard isatty(STDIN_FILENO) == 1 else { return nil }
        // Echo goes off before the prompt shows: what is typed once the prompt is there is never echoed, and never
        // discarded (TCSANOW: a password typed ahead is kept, not flushed).
        var settings = termios()
        let haveSettings = tcgetattr(STDIN_FILENO, &settings) == 0
        if haveSettings {
            var silent = settings
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        }
        write(prompt)
        defer {
            if haveSettings { tcsetattr(STDIN_FILENO, TCSANOW, &settings) }
            write("\n")
        }
        guard let line = readLine(strippingNewline: true), !line.isEmpty else { return nil }
        return line
    }

    /// Whether `host` is this machine (a loopback address or `localhost`), where plain http is allowed.
    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" { return true }
        let parts = host.split(separator: ".")
        return parts.count == 4 && parts.first == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    /// The default device id: `podfresh-<hostname>`, with what the gPodder API does not allow in an id made `-`.
    static var defaultDevice: String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "host"
        let cleaned = String(
            host.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "-" })
        return "podfresh-" + (cleaned.isEmpty ? "host" : cleaned)
    }
}
