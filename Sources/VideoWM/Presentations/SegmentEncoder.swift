import Animation

/// One row's encoder for one segment: marks each picture, encodes it with a fresh encoder (an
/// IDR first), and keeps the packets until the segment is written. Marking and encoding are two
/// steps, so a segment's rows can mark in turn and encode side by side (`SideBySideEncodes`).
final class SegmentEncoder {
    private let making: PresentationRow.VideoMaking
    private let plan: PresentationPlan
    private let encoder: Encoder
    private let file: String
    private let scratchFrame: Frame
    private let scratchPacket: Packet
    private var first = true
    private var packets: [Packet] = []
    /// libvpx's hidden frames joined to the next shown one, as FFmpeg's MP4 muxer would.
    private let superframes: BitstreamFilter?

    init(making: PresentationRow.VideoMaking, plan: PresentationPlan, file: String) throws {
        self.making = making
        self.plan = plan
        self.file = file
        encoder = try Encoder(making.setup.configuration, file: file)
        scratchFrame = try Frame()
        scratchPacket = try Packet()
        superframes = encoder.name == "libvpx-vp9" ? try BitstreamFilter(name: "vp9_superframe", encoder: encoder, file: file) : nil
    }

    /// Marks the picture presented at `pts` for this row and returns it, for `encode(_:exclusive:)`,
    /// which must follow before this row marks another. `exclusive` when no other row shares the
    /// frame (it may be marked in place; otherwise it is copied on write, so the picture returned is
    /// this row's own, or a reference only read from where nothing was drawn: rows' encodes may then
    /// run side by side). `converted`: the frame is already converted as this row's marker converts
    /// (`FrameMarker.Conversion`), by another row's marker of the same conversion.
    func mark(_ frame: Frame, pts: Int64, exclusive: Bool, converted: Bool = false) throws -> Frame {
        var picture = frame
        if !exclusive {
            try scratchFrame.reference(frame, file: file)
            picture = scratchFrame
        }
        do {
            let time = plan.time(pts)
            let marked = converted ? try making.marker.draw(on: picture, at: time) : try making.marker.mark(picture, at: time)
            marked.presentationTimestamp = pts
            // The decoder's picture type would carry the input's keyframes over: only the segment's
            // first picture and --gop's schedule place them.
            if first || making.setup.forcedKeyframes.contains(pts) { marked.requestKeyframe() } else { marked.clearPictureType() }
            first = false
            return marked
        } catch {
            if !exclusive { scratchFrame.unref() }
            throw error
        }
    }

    /// Encodes the picture `mark` returned, then lets go of the frame this row shared. Touches
    /// nothing but this row's encoder and frames.
    func encode(_ marked: Frame, exclusive: Bool) throws {
        defer { if !exclusive { scratchFrame.unref() } }
        try encoder.send(marked)
        try collect()
    }

    /// How this row's marker converts pictures.
    var conversion: FrameMarker.Conversion { making.marker.conversion }

    /// The picture presented at `pts` converted as this row's marker converts it, unmarked (the
    /// marker's reused frame: valid until its next conversion).
    func converted(_ frame: Frame, pts: Int64) throws -> Frame {
        try making.marker.converted(frame, at: plan.time(pts))
    }

    private func collect() throws {
        while try encoder.receive(into: scratchPacket) == .produced {
            let packet = try scratchPacket.retained(file: file)
            scratchPacket.unref()
            packets += try superframes?.filter(packet) ?? [packet]
        }
    }

    /// The packets once drained (`finish` is called again when the segment is written).
    private var finished: [Packet]?

    /// Drains the encoder; its packets in decode order, timestamps in the input's time base. Once
    /// drained, the same packets again.
    func finish() throws -> [Packet] {
        if let finished { return finished }
        try encoder.send(nil)
        try collect()
        if let superframes { packets += try superframes.filter(nil) }
        if encoder.timeBase != plan.timeBase {
            for packet in packets { packet.rescale(from: encoder.timeBase, to: plan.timeBase) }
        }
        finished = packets
        return packets
    }

    /// A packet's bytes as an MP4 sample: x264's and x265's Annex B stored length-prefixed (as
    /// the initialization segment's avcC/hvcC says), AV1 without its temporal delimiters.
    func sampleBytes(_ packet: Packet) throws -> [UInt8] {
        packet.withBytes { bytes -> [UInt8] in
            if making.setup.convertsAnnexB { return lengthPrefixed(nalUnitRanges(in: bytes, framing: .annexB).map { Array(bytes[$0]) }) }
            if encoder.name == "libsvtav1" { return AV1OBUs.withoutTemporalDelimiters(bytes) }
            return Array(bytes)
        }
    }
}

/// AV1 as MP4 stores it (ISO/IEC AV1-ISOBMFF §2.4): a sample's OBUs without temporal
/// delimiters, padding or tile lists, as FFmpeg's MP4 muxer filters them.
enum AV1OBUs {
    static func withoutTemporalDelimiters(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var offset = 0
        while offset < bytes.count {
            let header = bytes[offset]
            let type = Int(header >> 3) & 0x0F
            let hasExtension = header & 0x04 != 0, hasSize = header & 0x02 != 0
            var cursor = offset + 1 + (hasExtension ? 1 : 0)
            var size = bytes.count - cursor
            if hasSize {
                // leb128
                var value = 0, shift = 0
                while cursor < bytes.count {
                    let byte = bytes[cursor]
                    cursor += 1
                    value |= Int(byte & 0x7F) << shift
                    shift += 7
                    if byte & 0x80 == 0 || shift > 56 { break }
                }
                size = value
            }
            let end = min(cursor + size, bytes.count)
            if ![2, 8, 15].contains(type) { out += bytes[offset..<end] }
            guard end > offset else { break }
            offset = end
        }
        return out
    }
}
