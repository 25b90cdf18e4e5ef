import ConsoleOutput
import Foundation
import RefreshMetrics
import Testing

/// `watch --metrics` problems carry facts (what is wrong with the value; the address and errno of a failed bind);
/// ConsoleOutput alone words them. These pin the wording of every reason.
struct MetricsTextTests {
    static let addressWordings: [(MetricsAddressError.Reason, String)] = [
        (.unclosedBracket, "an IPv6 address in [ has no closing ]"),
        (.noPort, "no :PORT after the host"),
        (.ipv6WithoutBrackets, "write an IPv6 address in brackets, as [::1]:9464"),
        (.noHost, "no host before the port"),
        (.notAHost("exa mple"), "\"exa mple\" is not a host name or IP address"),
        (.badPort("94x"), "the port must be a number from 0 to 65535"),
    ]

    @Test(arguments: addressWordings)
    func eachAddressReasonIsWordedOnceAfterTheValue(reason: MetricsAddressError.Reason, words: String) {
        #expect(
            MetricsText.invalidAddress("v", MetricsAddressError(reason))
                == "--metrics \"v\" is not HOST:PORT (such as 127.0.0.1:9464): \(words).")
    }

    @Test func aBindFailureNamesTheAddressAndTheSystemsReason() async throws {
        // A real failure: the second server on a port the first holds.
        try await MetricsServer.serve(at: MetricsAddress(host: "127.0.0.1", port: 0), exposition: { [] }) { taken in
            let error = await #expect(throws: MetricsServerError.self) {
                try await MetricsServer.serve(at: taken.address, exposition: { [] }) { _ in }
            }
            #expect(
                error.map(MetricsText.unavailable)
                    == "cannot serve metrics on \(taken.address): Address already in use")
        }
    }

    static let bindWordings: [(MetricsServerError.Reason, String)] = [
        (.system(errno: EADDRINUSE), "cannot serve metrics on [::1]:9464: Address already in use"),
        (.system(errno: EACCES), "cannot serve metrics on [::1]:9464: Permission denied"),
        (.unknownHost, "cannot serve metrics on [::1]:9464: the host name was not found"),
        (.other("unexpected error (X.Y)"), "cannot serve metrics on [::1]:9464: unexpected error (X.Y)"),
    ]

    @Test(arguments: bindWordings)
    func eachBindReasonIsWordedOnce(reason: MetricsServerError.Reason, line: String) {
        #expect(MetricsText.unavailable(reason, at: MetricsAddress(host: "::1", port: 9464)) == line)
    }
}
