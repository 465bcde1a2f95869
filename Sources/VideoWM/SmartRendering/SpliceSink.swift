/// Writes one output's spliced video: the input's packets copied, each span's re-encoded packets
/// in the span's place, and every packet with the input's decode timestamp of its position
/// (`SplicedDecodeOrder`, streamed: nothing waits longer than a span's re-encode).
///
/// The caller hands over copied packets in the input's decode order and each span's encoded
/// packets as the encoder makes them. A copied packet that belongs after a span still being
/// encoded (the CRA that precedes its RASL pictures in decode order) waits here until the span's
/// last packet is written.
final class SpliceSink {
    private let destination: PacketSink
    private let timeBase: Rational
    private let plan: SmartPlan
    private let decodeTimestamps: [Int64]
    private let bitstream: SpliceBitstream
    private let file: String
    /// The next output position, in decode order.
    private var position = 0
    /// The first span whose encoded packets are not all written.
    private var openSpan = 0
    private var encodedInOpenSpan = 0
    private var previousWasEncoded = false
    private var held: [(packet: Packet, index: Int)] = []
    private var blaTypeOfPacket: [Int: Int] = [:]
    private var replaced = Set<Int>()
    /// H.264 spans ending before recovery-point keyframes: the renumbering of what follows them
    /// (or why it cannot be done, said when the first packet is written).
    private var h264Seams: Result<H264OpenGOPSeams, H264HeaderError>?

    /// Why a splice cannot be completed as planned; the job renders in full instead (or, for
    /// `--render smart`, reports it).
    struct Failure: Error, Equatable, CustomStringConvertible {
        var reason: String
        /// An encoder the library configured for a span refused to open: the settings are ours, not
        /// the user's, so `--render smart` reports it as an internal error, never as a usage error.
        var refusedEncoder: EncoderError?
        var description: String { reason }

        init(reason: String, refusedEncoder: EncoderError? = nil) {
            self.reason = reason
            self.refusedEncoder = refusedEncoder
        }

        /// What a splice failed midway becomes, decided here for every driver: under `auto` a full
        /// render of the output instead, with the notice it says; under `--render smart` an error —
        /// a refused encoder as the library's own fault (`EncoderError.Origin.library`, never a usage
        /// error), anything else as a splice that cannot be made.
        func fallback(under mode: RenderMode, input: String) throws -> RenderOutcome {
            guard mode == .smart else { return RenderOutcome(isSmart: false, notice: "render: full (the splice failed: \(reason))") }
            if var encoder = refusedEncoder {
                encoder.origin = .library
                throw encoder
            }
            throw RenderError(file: input, reason: reason)
        }
    }

    init(destination: PacketSink, timeBase: Rational, plan: SmartPlan, decodeTimestamps: [Int64], bitstream: SpliceBitstream, file: String) {
        precondition(decodeTimestamps.count == plan.packetCount, "one decode timestamp per input packet")
        self.destination = destination
        self.timeBase = timeBase
        self.plan = plan
        self.decodeTimestamps = decodeTimestamps
        self.bitstream = bitstream
        self.file = file
        for span in plan.spans {
            replaced.formUnion(span.replacedPackets)
            if let bla = span.keyframeBecomingBLA { blaTypeOfPacket[bla.packet] = bla.nalType }
        }
        let idrKeyframes = Set(plan.spans.compactMap(\.keyframeBecomingIDR))
        if !idrKeyframes.isEmpty {
            h264Seams = Result { () throws(H264HeaderError) in
                try H264OpenGOPSeams(keyframes: idrKeyframes, parameterSets: bitstream.inputParameterSets + bitstream.encoderParameterSets)
            }
        }
    }

    private func seams() throws -> H264OpenGOPSeams? {
        switch h264Seams {
        case nil: return nil
        case .success(let seams): return seams
        case .failure(let error): throw Failure(reason: error.description)
        }
    }

    /// Whether input packet `index` is replaced by a re-encoded one (its picture comes from the encoder).
    func isReplaced(_ index: Int) -> Bool { replaced.contains(index) }

    /// Takes input video packet `index` (decode order) unless it is replaced; the caller keeps `packet`.
    func copy(_ packet: Packet, index: Int) throws {
        guard !replaced.contains(index) else { return }
        if openSpan < plan.spans.count, index > plan.spans[openSpan].replacedPackets[0] {
            let reference = try Packet()
            try reference.reference(packet, file: file)
            held.append((reference, index))
            return
        }
        try writeCopied(packet, index: index)
    }

    /// Writes the next encoded packet of the open span (its timestamps in `timeBase`).
    func writeEncoded(_ packet: Packet) throws {
        guard openSpan < plan.spans.count else { throw Failure(reason: "the encoder gave more pictures than the spans replace") }
        let span = plan.spans[openSpan]
        guard encodedInOpenSpan < span.replacedPackets.count else {
            throw Failure(reason: "span \(openSpan + 1) replaces \(span.replacedPackets.count) pictures but the encoder gave more")
        }
        if let seams = try seams() {
            do {
                try seams.noteEncoded(annexBUnits(packet.withBytes { Array($0) }))
            } catch {
                throw Failure(reason: error.description)
            }
        }
        if let bytes = packet.withBytes({ bitstream.encoded($0, isKeyframe: packet.isKeyframe) }) {
            try packet.replaceData(with: bytes, file: file)
        }
        try write(packet)
        previousWasEncoded = true
        encodedInOpenSpan += 1
    }

    /// Says the open span's encoder is drained: its packet count must be the span's, and the packets
    /// held behind it are written.
    func endSpan() throws {
        precondition(openSpan < plan.spans.count, "endSpan with no span open")
        let expected = plan.spans[openSpan].replacedPackets.count
        guard encodedInOpenSpan == expected else {
            throw Failure(reason: "span \(openSpan + 1) replaces \(expected) pictures but the encoder gave \(encodedInOpenSpan)")
        }
        openSpan += 1
        encodedInOpenSpan = 0
        let waiting = held
        held = []
        for (packet, index) in waiting { try copy(packet, index: index) }
    }

    /// Checks that every span was written and nothing is left waiting.
    func finish() throws {
        guard openSpan == plan.spans.count, held.isEmpty else {
            throw Failure(reason: "span \(openSpan + 1) of \(plan.spans.count) was never completed")
        }
        guard position == plan.packetCount else {
            throw Failure(reason: "\(position) video packets written for the input's \(plan.packetCount)")
        }
    }

    private func writeCopied(_ packet: Packet, index: Int) throws {
        let blaType = blaTypeOfPacket[index]
        let scratch = try Packet()
        try scratch.reference(packet, file: file)
        scratch.clearPosition()
        let edited: [UInt8]?
        do {
            let seams = try seams()
            edited = try packet.withBytes {
                try bitstream.copied($0, isKeyframe: packet.isKeyframe, firstAfterSpan: previousWasEncoded, blaType: blaType, h264Seams: seams, index: index)
            }
        } catch let error as H264HeaderError {
            throw Failure(reason: error.description)
        }
        if let bytes = edited {
            try scratch.replaceData(with: bytes, file: file)
        }
        try write(scratch)
        previousWasEncoded = false
    }

    /// Gives `packet` the decode timestamp of the next output position and writes it.
    private func write(_ packet: Packet) throws {
        guard position < decodeTimestamps.count else {
            throw Failure(reason: "more video packets than the input has")
        }
        let dts = decodeTimestamps[position]
        if let pts = packet.presentationTimestamp, dts > pts {
            throw Failure(reason: "a re-encoded picture (pts \(pts)) would be decoded at \(dts), after it is shown")
        }
        packet.decodeTimestamp = dts
        position += 1
        try destination.write(packet, timeBase: timeBase)
    }
}
