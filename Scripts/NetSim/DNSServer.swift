import NIOCore
import NIOPosix

/// A DNS server on UDP: A records for known names after a delay, AAAA answered with no records, NXDOMAIN for names
/// marked missing and for every unknown name, and nothing at all for names marked silent.
///
/// Only what a stub resolver sends is understood: one question per query, class IN. Anything it cannot read is
/// answered FORMERR at once.
struct DNSServer {
    struct Entry: Sendable {
        var address: [UInt8]?
        var behaviour: Layout.NameBehaviour
        var delay: TimeAmount
    }

    let entries: [String: Entry]
    let defaultDelay: TimeAmount
    let ttl: UInt32
    let statistics: Statistics

    init(layout: Layout, statistics: Statistics) {
        var entries: [String: Entry] = [:]
        for host in layout.hosts {
            let octets = host.address.split(separator: ".").compactMap { UInt8($0) }
            entries[host.name] = Entry(
                address: octets.count == 4 ? octets : nil,
                behaviour: host.dns,
                delay: .milliseconds(Int64(host.dnsDelayMs ?? layout.dns.delayMs)))
        }
        self.entries = entries
        self.defaultDelay = .milliseconds(Int64(layout.dns.delayMs))
        self.ttl = UInt32(layout.dns.ttl)
        self.statistics = statistics
    }

    /// Binds the UDP socket.
    func start(group: any EventLoopGroup, host: String, port: Int) async throws -> any Channel {
        let server = self
        return try await DatagramBootstrap(group: group)
            .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DNSHandler(server: server))
                }
            }
            .bind(host: host, port: port).get()
    }

    /// What to do with one query.
    enum Reply {
        case answer(ByteBuffer, name: String, delay: TimeAmount)
        case silence
        case formatError(ByteBuffer)
    }

    func reply(to query: ByteBuffer) -> Reply {
        var q = query
        guard let id = q.readInteger(as: UInt16.self), let flags = q.readInteger(as: UInt16.self),
            let qdcount = q.readInteger(as: UInt16.self), q.readableBytes >= 6, qdcount == 1
        else {
            return .formatError(header(id: query.getInteger(at: 0) ?? 0, flags: 0, rcode: 1, answers: 0))
        }
        q.moveReaderIndex(forwardBy: 6)
        let questionStart = q.readerIndex
        var labels: [String] = []
        while true {
            guard let length = q.readInteger(as: UInt8.self), length < 64 else {
                return .formatError(header(id: id, flags: flags, rcode: 1, answers: 0))
            }
            if length == 0 { break }
            guard let label = q.readString(length: Int(length)) else {
                return .formatError(header(id: id, flags: flags, rcode: 1, answers: 0))
            }
            labels.append(label)
        }
        guard let type = q.readInteger(as: UInt16.self), q.readInteger(as: UInt16.self) != nil else {
            return .formatError(header(id: id, flags: flags, rcode: 1, answers: 0))
        }
        let question = query.getSlice(at: questionStart, length: q.readerIndex - questionStart)!
        let name = labels.joined(separator: ".").lowercased()
        let entry = entries[name]
        if entry?.behaviour == .silent {
            statistics.queryReceived(name: name, type: type, answered: false)
            return .silence
        }
        statistics.queryReceived(name: name, type: type, answered: true)
        var response: ByteBuffer
        if let entry, entry.behaviour == .ok, let address = entry.address {
            let answers: UInt16 = type == 1 ? 1 : 0
            response = header(id: id, flags: flags, rcode: 0, answers: answers)
            var copy = question
            response.writeBuffer(&copy)
            if type == 1 {
                response.writeInteger(UInt16(0xC00C))  // the name: a pointer to the question's
                response.writeInteger(UInt16(1))  // A
                response.writeInteger(UInt16(1))  // IN
                response.writeInteger(ttl)
                response.writeInteger(UInt16(4))
                response.writeBytes(address)
            }
        } else {
            response = header(id: id, flags: flags, rcode: 3, answers: 0)  // NXDOMAIN
            var copy = question
            response.writeBuffer(&copy)
        }
        return .answer(response, name: name, delay: entry?.delay ?? defaultDelay)
    }

    /// A response header with one question: QR, AA and RA set, RD and the opcode copied from the query.
    private func header(id: UInt16, flags: UInt16, rcode: UInt16, answers: UInt16) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(id)
        let opcodeAndRD = flags & 0x7900
        buffer.writeInteger(UInt16(0x8000 | 0x0400 | 0x0080) | opcodeAndRD | rcode)
        buffer.writeInteger(UInt16(1))
        buffer.writeInteger(answers)
        buffer.writeInteger(UInt16(0))
        buffer.writeInteger(UInt16(0))
        return buffer
    }
}

/// Reads queries and writes each answer after its name's delay, on the socket's own event loop.
final class DNSHandler: ChannelInboundHandler {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>
    typealias OutboundOut = AddressedEnvelope<ByteBuffer>

    private let server: DNSServer

    init(server: DNSServer) { self.server = server }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let envelope = unwrapInboundIn(data)
        let statistics = server.statistics
        switch server.reply(to: envelope.data) {
        case .silence:
            return
        case .formatError(let buffer):
            context.writeAndFlush(
                wrapOutboundOut(.init(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
        case .answer(let buffer, let name, let delay):
            let channel = context.channel
            let reply = AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)
            context.eventLoop.scheduleTask(in: delay) {
                statistics.queryAnswered(name: name)
                channel.writeAndFlush(reply, promise: nil)
            }
        }
    }
}
