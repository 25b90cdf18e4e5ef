import Measures
public import RefreshMetrics

/// How `watch --metrics` problems read: the one place a ``MetricsAddressError/Reason`` and a
/// ``MetricsServerError/Reason`` are worded.
public enum MetricsText {
    /// The usage error for a `--metrics` value that is not `HOST:PORT`:
    /// `--metrics "9464" is not HOST:PORT (such as 127.0.0.1:9464): no :PORT after the host.`
    public static func invalidAddress(_ text: String, _ error: MetricsAddressError) -> String {
        "--metrics \"\(text)\" is not HOST:PORT (such as 127.0.0.1:9464): \(reason(error.reason))."
    }

    /// What is wrong with a `--metrics` value.
    static func reason(_ reason: MetricsAddressError.Reason) -> String {
        switch reason {
        case .unclosedBracket: "an IPv6 address in [ has no closing ]"
        case .noPort: "no :PORT after the host"
        case .ipv6WithoutBrackets: "write an IPv6 address in brackets, as [::1]:9464"
        case .noHost: "no host before the port"
        case .notAHost(let host): "\"\(host)\" is not a host name or IP address"
        case .badPort: "the port must be a number from 0 to 65535"
        }
    }

    /// The address could not be bound: `cannot serve metrics on 127.0.0.1:9464: Address already in use`.
    public static func unavailable(_ error: MetricsServerError) -> String {
        unavailable(error.reason, at: error.address)
    }

    /// `address` could not be bound for `reason`.
    public static func unavailable(_ reason: MetricsServerError.Reason, at address: MetricsAddress) -> String {
        "cannot serve metrics on \(address): \(self.reason(reason))"
    }

    /// Why an address could not be bound.
    static func reason(_ reason: MetricsServerError.Reason) -> String {
        switch reason {
        case .system(let code): ErrorWords.system(errno: code)
        case .unknownHost: "the host name was not found"
        case .other(let words): words
        }
    }
}
