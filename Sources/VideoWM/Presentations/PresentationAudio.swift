import Foundation

/// Audio re-encoded once per presentation and kept: an encoder's state (priming, its bit
/// reservoir) makes a segment's audio re-encoded alone differ from the same audio encoded in
/// one go, so every segment takes its packets from one encode.
final class AudioCache: @unchecked Sendable {
    private let lock = NSLock()
    private var encoded: [Int: EncodedAudio] = [:]

    /// The encoded audio of `stream`, made by `make` the first time.
    func audio(of stream: Int, make: () throws -> EncodedAudio) throws -> EncodedAudio {
        lock.lock()
        defer { lock.unlock() }
        if let known = encoded[stream] { return known }
        let made = try make()
        encoded[stream] = made
        return made
    }
}

/// One audio stream of the input re-encoded whole: its packets in decode order and the encoder
/// that made them (which describes the track in the initialization segment).
final class EncodedAudio: @unchecked Sendable {
    let reencoder: AudioReencoder
    let packets: [Packet]
    let timeBase: Rational

    init(reencoder: AudioReencoder, packets: [Packet]) {
        self.reencoder = reencoder
        self.packets = packets
        timeBase = reencoder.timeBase
    }
}

extension EncodedAudio {
    /// Re-encodes stream `stream` of `input` whole with `encoderName`.
    static func encode(stream index: Int, of input: String, encoderName: String) throws -> EncodedAudio {
        let file = try InputFile(path: input)
        let stream = file.stream(index)
        let reencoder = try AudioReencoder(stream: stream, input: input, encoderName: encoderName, file: input, globalHeader: true)
        let sink = CollectingSink(file: input)
        reencoder.write(to: sink)
        let packet = try Packet()
        while try file.read(into: packet) {
            defer { packet.unref() }
            try Interruption.throwIfRequested()
            if packet.streamIndex == index { try reencoder.consume(Optional(packet)) }
        }
        try reencoder.finish()
        return EncodedAudio(reencoder: reencoder, packets: sink.packets)
    }

    /// The packets of segment `k` (by presentation time), and the first packet after them.
    func packets(ofSegment k: Int, plan: PresentationPlan) -> (Range<Int>, Packet?) {
        let segments = packets.map { plan.segment(containing: $0.presentationTimestamp ?? $0.decodeTimestamp ?? Int64.min, in: timeBase) }
        let start = segments.firstIndex { $0 >= k } ?? packets.count
        let end = segments[start...].firstIndex { $0 > k } ?? packets.count
        return (start..<end, end < packets.count ? packets[end] : nil)
    }
}

/// A sink that keeps every packet written to it (in the time base they come in).
final class CollectingSink: PacketSink {
    private(set) var packets: [Packet] = []
    private var timeBase: Rational?
    private let file: String

    init(file: String) { self.file = file }

    func write(_ packet: Packet, timeBase: Rational) throws {
        precondition(self.timeBase == nil || self.timeBase == timeBase, "one time base per collected stream")
        self.timeBase = timeBase
        packets.append(try packet.retained(file: file))
    }
}

