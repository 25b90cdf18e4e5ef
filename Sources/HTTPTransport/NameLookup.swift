import Foundation
import Measures

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One address a host name resolved to.
public struct ResolvedAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address in text form (`192.0.2.1`, `2001:db8::1`).
    public var ip: String
    /// True for an IPv6 address.
    public var isIPv6: Bool

    public init(ip: String, isIPv6: Bool) {
        self.ip = ip
        self.isIPv6 = isIPv6
    }

    public var description: String { ip }
}

/// Why a host name did not resolve.
public struct NameLookupError: Error, Sendable, Hashable {
    /// What went wrong, in kinds a caller acts on differently.
    public enum Kind: Sendable, Hashable {
        /// The name server answered that the name does not exist (or has no address).
        case noSuchHost
        /// The name server could not be reached or answered "try again" (`EAI_AGAIN`).
        case nameServerUnavailable
        /// No answer within the lookup's time limit; the lookup may still be running in the background.
        case timedOut(Duration)
        /// Any other resolver failure, with the C library's words.
        case failed(String)
    }

    public var kind: Kind
    /// The name looked up.
    public var host: String

    public init(kind: Kind, host: String) {
        self.kind = kind
        self.host = host
    }
}

/// The system's own resolver (`getaddrinfo`: `/etc/hosts`, `resolv.conf` search domains and options, `nsswitch.conf`)
/// run on threads of its own, as many at once as there are names to look up (up to 128, ``threads``).
///
/// SwiftNIO runs `getaddrinfo` on one serial queue per event-loop thread, so on two cores at most two names resolve at
/// once and a name that never answers holds up every lookup queued behind it. Here each lookup has its own thread:
/// a slow name costs its own callers their wait and nobody else anything.
enum BlockingNameLookup {
    /// The threads lookups run on: at most 128 at once, more wait their turn. Each blocked thread costs a stack,
    /// nothing else; getaddrinfo needs little stack, and 256 KiB keeps a hundred blocked lookups cheap.
    static let threads = BlockingThreads(name: "podfresh-resolver", maximum: 128, stackSize: 256 * 1024)

    /// Looks `host` up on a thread of its own; `completion` runs on that thread.
    static func lookUp(
        _ host: String, completion: @escaping @Sendable (Result<[ResolvedAddress], NameLookupError>) -> Void
    ) {
        threads.run { completion(resolve(host)) }
    }

    /// `getaddrinfo` for a TCP connection, the way SwiftNIO calls it (no flags), with the addresses in the order the
    /// system sorted them (RFC 6724), families interleaved so a broken IPv6 route costs one attempt, not all of them.
    static func resolve(_ host: String) -> Result<[ResolvedAddress], NameLookupError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc) || canImport(Musl)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, nil, &hints, &list)
        guard code == 0 else {
            switch code {
            case EAI_NONAME, eaiNoData, eaiAddrFamily:
                return .failure(NameLookupError(kind: .noSuchHost, host: host))
            case EAI_AGAIN:
                return .failure(NameLookupError(kind: .nameServerUnavailable, host: host))
            default:
                return .failure(NameLookupError(kind: .failed(String(cString: gai_strerror(code))), host: host))
            }
        }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var entry = list
        while let current = entry {
            if let address = Self.text(of: current.pointee), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = current.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(NameLookupError(kind: .noSuchHost, host: host)) }
        return .success(interleaved(addresses))
    }

    /// Alternates the two families, starting with the system's first choice (RFC 8305, section 4).
    static func interleaved(_ addresses: [ResolvedAddress]) -> [ResolvedAddress] {
        guard let first = addresses.first else { return [] }
        var preferred = addresses.filter { $0.isIPv6 == first.isIPv6 }[...]
        var other = addresses.filter { $0.isIPv6 != first.isIPv6 }[...]
        var result: [ResolvedAddress] = []
        while !preferred.isEmpty || !other.isEmpty {
            if let next = preferred.popFirst() { result.append(next) }
            if let next = other.popFirst() { result.append(next) }
        }
        return result
    }

    private static func text(of info: addrinfo) -> ResolvedAddress? {
        guard let socketAddress = info.ai_addr else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch info.ai_family {
        case AF_INET:
            var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return ResolvedAddress(ip: Self.string(buffer), isIPv6: false)
        case AF_INET6:
            var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            return ResolvedAddress(ip: Self.string(buffer), isIPv6: true)
        default:
            return nil
        }
    }

    private static func string(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// glibc's `EAI_NODATA` and `EAI_ADDRFAMILY` (GNU extensions, not in every C module map).
    private static let eaiNoData: Int32 = -5
    private static let eaiAddrFamily: Int32 = -9
}
