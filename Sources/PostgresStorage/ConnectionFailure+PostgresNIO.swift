import FeedModels
import Measures
import NIOCore
import NIOPosix
import PostgresNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension PostgresFeedStore {
    /// Why postgres-nio could not connect, from the typed errors it wraps: NIO's `NIOConnectionError` (the name
    /// lookups' errors and each attempt's), an `IOError`'s errno, a `ChannelError.connectTimeout`.
    static func connectionFailure(_ error: PSQLError) -> ConnectionFailure {
        let closed = error.code == .serverClosedConnection || error.code == .uncleanShutdown
        guard let underlying = error.underlying else { return closed ? .closedEarly : .other("\(error.code)") }
        let failure = connectionFailure(underlying)
        if closed, case .other = failure { return .closedEarly }
        return failure
    }

    /// The facts of one connection error (NIO's own, or an error of a type nobody expected).
    static func connectionFailure(_ error: any Error) -> ConnectionFailure {
        switch error {
        case let error as NIOConnectionError:
            // Every attempt failed: the first one says why (all addresses of one host tend to fail alike).
            if let first = error.connectionErrors.first { return connectionFailure(first.error) }
            if let lookup = error.dnsAError ?? error.dnsAAAAError { return connectionFailure(lookup) }
            return .noSuchHost(code: nil)
        case let error as SocketAddressError.UnknownHost:
            return .noSuchHost(code: error.errorCode)
        case let error as IOError:
            switch error.errnoCode {
            case ECONNREFUSED: return .connectionRefused
            case ETIMEDOUT: return .connectTimedOut(seconds: nil)
            default: return .system(errno: error.errnoCode)
            }
        case let error as ChannelError:
            if case .connectTimeout(let amount) = error {
                return .connectTimedOut(seconds: Double(amount.nanoseconds) / 1e9)
            }
            if error == .eof || error == .alreadyClosed || error == .ioOnClosedChannel { return .closedEarly }
            return .other(ErrorWords.describe(error))
        default:
            return .other(ErrorWords.describe(error))
        }
    }
}
