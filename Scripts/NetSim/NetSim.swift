import Dispatch
import Foundation
import NIOCore
import NIOPosix

/// `podfresh-netsim --layout FILE --corpus DIR [--cert PEM --key PEM] [--stats-out FILE]`
///
/// Runs the simulated internet described by the layout in this process: the DNS server, every host's listener and the
/// control server. Meant to run inside a network namespace made by Scripts/netsim.sh, which binds 127.0.0.53:53 and
/// ports 80/443 on many 127.x.y.z addresses. Prints `ready` once everything listens; on SIGTERM or SIGINT writes the
/// counters to `--stats-out` (when given) and exits.
@main
enum NetSim {
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("podfresh-netsim: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        var options: [String: String] = [:]
        var arguments = CommandLine.arguments.dropFirst()
        while let flag = arguments.popFirst() {
            guard flag.hasPrefix("--"), let value = arguments.popFirst() else {
                throw NetSimError(
                    "usage: podfresh-netsim --layout FILE --corpus DIR [--cert PEM --key PEM] [--stats-out FILE]")
            }
            options[String(flag.dropFirst(2))] = value
        }
        guard let layoutPath = options["layout"] else { throw NetSimError("--layout is required") }
        let layout = try JSONDecoder().decode(Layout.self, from: Data(contentsOf: URL(fileURLWithPath: layoutPath)))

        let statistics = Statistics()
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        var sites: [String: Site] = [:]
        for host in layout.hosts {
            var feeds: [String: Layout.Feed] = [:]
            for feed in host.feeds { feeds[feed.path] = feed }
            sites[host.name] = Site(
                host: host, feeds: feeds, bytesPerSecond: host.bytesPerSecond ?? layout.bytesPerSecond)
        }
        let web = WebContext(sites: sites, files: FileStore(root: options["corpus"] ?? "."), statistics: statistics)

        let dns = DNSServer(layout: layout, statistics: statistics)
        _ = try await dns.start(group: group, host: layout.dns.address, port: layout.dns.port)
        let listeners = try await WebHosts.start(
            layout: layout, context: web, group: group, certificate: options["cert"], key: options["key"])
        _ = try await ControlServer.start(
            group: group, address: layout.control.address, port: layout.control.port, statistics: statistics)

        let statsOut = options["stats-out"]
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                if let statsOut { try? statistics.json().write(to: URL(fileURLWithPath: statsOut)) }
                exit(0)
            }
            source.resume()
            sources.append(source)
        }
        FileHandle.standardOutput.write(
            Data(
                ("ready: \(layout.hosts.count) names, \(listeners.count) listeners, dns \(layout.dns.address):\(layout.dns.port), "
                    + "stats http://\(layout.control.address):\(layout.control.port)/stats\n").utf8))
        while true {
            try await Task.sleep(for: .seconds(3600))
            _ = sources.count  // the signal sources live as long as the process
        }
    }
}
