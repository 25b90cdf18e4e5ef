import Foundation

/// What the simulated internet looks like: the resolver, the hosts behind each name, and the feeds on each host.
///
/// Written by Scripts/bench-internet.sh and the InternetTests, read once when `podfresh-netsim` starts. Every delay is
/// in milliseconds; a field left out takes the default named beside it.
struct Layout: Decodable, Sendable {
    /// The DNS server (default 127.0.0.53:53, 40 ms per answer).
    var dns: DNSSettings = .init()
    /// Where `/stats` and `/reset` are served (default 127.0.0.2:9999, plain HTTP/1.1).
    var control: Endpoint = .init(address: "127.0.0.2", port: 9999)
    /// The body rate cap of one connection (an HTTP/2 stream) in bytes per second, for every host that sets none
    /// (default 5 MB/s; 0 for no cap).
    var bytesPerSecond: Int = 5_000_000
    /// Every name the DNS server knows, with its host.
    var hosts: [Host]

    struct DNSSettings: Decodable, Sendable {
        var address = "127.0.0.53"
        var port = 53
        /// How long every answer waits, unless the name sets its own.
        var delayMs = 40
        /// The time to live of every answer, in seconds.
        var ttl = 300
    }

    struct Endpoint: Decodable, Sendable {
        var address: String
        var port: Int
    }

    /// How the DNS server treats one name.
    enum NameBehaviour: String, Decodable, Sendable {
        /// An A record with the host's address (after the delay); AAAA is answered with no records.
        case ok
        /// NXDOMAIN (after the delay).
        case missing
        /// No answer at all, ever.
        case silent
    }

    /// One host: a name, its address, and what it serves.
    struct Host: Decodable, Sendable {
        var name: String
        /// Its own address on 127.0.0.0/8, so connections to different hosts are told apart.
        var address: String
        var dns: NameBehaviour = .ok
        /// This name's DNS delay; nil for the resolver's.
        var dnsDelayMs: Int?
        /// Serves HTTPS on 443 (with the test CA's certificate) instead of HTTP on 80.
        var tls = false
        /// Offers HTTP/2 through ALPN (only with `tls`).
        var h2 = false
        /// The most streams an HTTP/2 client may open at once on one connection (`SETTINGS_MAX_CONCURRENT_STREAMS`),
        /// as real servers name one: 100 unless set (nginx's and most CDNs' default; some name 128 or 250).
        var h2MaxStreams = 100
        /// Nothing listens: every connection is refused.
        var refuse = false
        /// How long every answer waits before its head, unless the feed sets its own.
        var delayMs = 0
        /// This host's body rate cap per connection; nil for the layout's.
        var bytesPerSecond: Int?
        var feeds: [Feed] = []

        enum CodingKeys: String, CodingKey {
            case name, address, dns, dnsDelayMs, tls, h2, h2MaxStreams, refuse, delayMs, bytesPerSecond, feeds
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name).lowercased()
            address = try c.decodeIfPresent(String.self, forKey: .address) ?? "127.255.255.254"
            dns = try c.decodeIfPresent(NameBehaviour.self, forKey: .dns) ?? .ok
            dnsDelayMs = try c.decodeIfPresent(Int.self, forKey: .dnsDelayMs)
            tls = try c.decodeIfPresent(Bool.self, forKey: .tls) ?? false
            h2 = try c.decodeIfPresent(Bool.self, forKey: .h2) ?? false
            h2MaxStreams = try c.decodeIfPresent(Int.self, forKey: .h2MaxStreams) ?? 100
            refuse = try c.decodeIfPresent(Bool.self, forKey: .refuse) ?? false
            delayMs = try c.decodeIfPresent(Int.self, forKey: .delayMs) ?? 0
            bytesPerSecond = try c.decodeIfPresent(Int.self, forKey: .bytesPerSecond)
            feeds = try c.decodeIfPresent([Feed].self, forKey: .feeds) ?? []
        }
    }

    /// One path on a host.
    struct Feed: Decodable, Sendable {
        /// The request path, e.g. `/feeds/f0001.xml`.
        var path: String
        /// The file served, relative to the corpus folder (its `.gz` beside it is served to clients asking for gzip);
        /// nil with a `status`.
        var file: String?
        /// This feed's delay before the head; nil for the host's.
        var delayMs: Int?
        /// A fixed status (404, 500, ...) answered with a short body instead of the file.
        var status: Int?
        /// Served instead of `file` in the `changed` mode (``ServingMode``): the feed with one new item at the top.
        var changedFile: String?
        /// How the feed answers in the `mixed` mode: nil with validators as usual, `none` without validators,
        /// `stamped` without validators and with `stampedFiles` in turn.
        var mixed: String?
        /// The feed's files with another `lastBuildDate` each, served in turn in the `mixed` mode when `stamped`.
        var stampedFiles: [String]?
    }

    enum CodingKeys: String, CodingKey { case dns, control, bytesPerSecond, hosts }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        dns = try c.decodeIfPresent(DNSSettings.self, forKey: .dns) ?? .init()
        control = try c.decodeIfPresent(Endpoint.self, forKey: .control) ?? .init(address: "127.0.0.2", port: 9999)
        bytesPerSecond = try c.decodeIfPresent(Int.self, forKey: .bytesPerSecond) ?? 5_000_000
        hosts = try c.decode([Host].self, forKey: .hosts)
    }
}

extension Layout.DNSSettings {
    enum CodingKeys: String, CodingKey { case address, port, delayMs, ttl }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        address = try c.decodeIfPresent(String.self, forKey: .address) ?? "127.0.0.53"
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? 53
        delayMs = try c.decodeIfPresent(Int.self, forKey: .delayMs) ?? 40
        ttl = try c.decodeIfPresent(Int.self, forKey: .ttl) ?? 300
    }
}
