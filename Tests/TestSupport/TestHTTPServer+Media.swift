import Foundation

/// How a media route answers a `Range` request.
public enum TestRangeBehaviour: Sendable {
    /// 206 with the asked range and its `Content-Range` (when `If-Range`, if sent, still matches).
    case honour
    /// Always 200 with the whole body, as a server without range support does.
    case ignore
    /// 206 from this offset, whatever was asked (a server that gets the start wrong).
    case startAt(Int)
}

extension TestHTTPServer {
    /// Serves a media file like a CDN: `ETag` and `Last-Modified`, `Range: bytes=N-` answered with 206 and
    /// `Content-Range`, `If-Range` honoured (a validator that no longer matches gets the whole, current body with 200:
    /// what happens when dynamic ad insertion changed the file). Never gzipped. Call again to change the body (and
    /// give it a new `etag`).
    ///
    /// - Parameter fault: Applied to every answer, to the bytes actually sent (the range for a 206).
    public func serveMedia(
        _ path: String, _ body: [UInt8], contentType: String = "audio/mpeg", etag: String? = "\"v1\"",
        lastModified: String? = "Tue, 12 Nov 2024 05:00:00 GMT", ranges: TestRangeBehaviour = .honour,
        fault: TestFault? = nil
    ) {
        setRoute(path) { request in
            var headers: [(String, String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
            if let etag { headers.append(("ETag", etag)) }
            if let lastModified { headers.append(("Last-Modified", lastModified)) }
            let whole = TestResponse(status: 200, headers: headers, body: body, fault: fault, compressible: false)
            guard let range = request.headers["range"], let start = Self.rangeStart(range) else { return whole }
            if let ifRange = request.headers["if-range"], ifRange != etag && ifRange != lastModified {
                return whole
            }
            let from: Int
            switch ranges {
            case .ignore: return whole
            case .honour: from = start
            case .startAt(let offset): from = offset
            }
            guard from < body.count else {
                return TestResponse(
                    status: 416, headers: headers + [("Content-Range", "bytes */\(body.count)")], compressible: false)
            }
            return TestResponse(
                status: 206, headers: headers + [("Content-Range", "bytes \(from)-\(body.count - 1)/\(body.count)")],
                body: Array(body[from...]), fault: fault, compressible: false)
        }
    }

    /// Routes `prefix0`, `prefix1`, … `prefix(hops-1)`, each a 302 to the next and the last to `target`: a chain of
    /// tracking redirects. Returns the first path.
    @discardableResult
    public func serveRedirectChain(_ prefix: String, hops: Int, to target: String) -> String {
        for hop in 0..<hops {
            let next = hop + 1 < hops ? "\(prefix)\(hop + 1)" : target
            setRoute("\(prefix)\(hop)", .redirect(302, to: next))
        }
        return "\(prefix)0"
    }

    /// The N of `bytes=N-` (or `bytes=N-M`).
    public static func rangeStart(_ value: String) -> Int? {
        guard value.hasPrefix("bytes=") else { return nil }
        let spec = value.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[..<dash])
    }
}
