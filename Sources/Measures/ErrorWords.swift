import Foundation

/// How a message names an error whose type the message's author did not expect: its `LocalizedError` description
/// or Foundation's, else its type. Never its raw `description` dump (`connect(descriptor:addr:size:): …`,
/// `HTTPClientError.xyz`), which means nothing to a user.
public enum ErrorWords {
    /// One short phrase for `error`.
    public static func describe(_ error: any Error) -> String {
        if let error = error as? any LocalizedError, let text = error.errorDescription { return text }
        if error is CocoaError || error is POSIXError { return error.localizedDescription }
        return "unexpected error (\(String(reflecting: type(of: error))))"
    }

    /// The system's words for an `errno` value: `Address already in use`.
    public static func system(errno code: Int32) -> String { String(cString: strerror(code)) }

    /// getaddrinfo's words for one of its error codes (`EAI_NONAME`: `Name or service not known`).
    public static func nameLookup(code: Int32) -> String { String(cString: gai_strerror(code)) }
}
