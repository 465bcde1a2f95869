import Foundation
import Overlay

/// The video of one batch row written as an HLS presentation whose unmarked segments are shared
/// (docs/hls.md, section 11): segment by segment (`SharedSegmentPlan`), either the input's own
/// packets, copied — the same bytes for every row — or, where one of the row's marks is visible,
/// every picture of the segment decoded, marked and re-encoded by an encoder of its own.
///
/// A re-encoded segment must decode in the middle of the input's stream and be the same kind
/// of segment for every row:
/// - its encoder (x264, `stitchable`, no B-frames, an IDR first) writes parameter sets on an id
///   the input does not use, listed after the input's in the one sample description (avcC) every
///   row's initialization segment carries, so copied and re-encoded pictures each find theirs;
/// - its pictures take the input's decode times, position by position (without B-frames a
///   picture's decode time may be any earlier one; the input's are earlier than its sorted
///   presentation times), and the input packets' durations, so the segment spans exactly the
///   time the input's did and the next copied segment follows without a gap or overlap;
/// - the encoder's Annex B output is stored length-prefixed, as the avcC says.
///
/// Copied packets of later segments wait while a re-encoded segment is still being encoded
/// (its last pictures come out of the decoder after the next segment's first packets), so the
/// segmenter receives each segment's video in order.
final class SegmentwiseVideo {
    private let plan: SharedSegmentPlan
    private let marked: [Bool]
    private let marker: FrameMarker
    private let configuration: VideoEncoderConfiguration
    private let sink: PacketSink
    private let copier: StreamCopier
    private let inputTimeBase: Rational
    private let segmenter: HLSSegmenter
    private let file: String
    private let scratchFrame: Frame
    private let scratchPacket: Packet

    /// The segment of the latest video packet (decode order).
    private var packetSegment = 0
    /// The input packets a re-encoded segment replaces, by segment, in decode order.
    private var replaced: [Int: [SharedSegmentPlan.InputPacket]] = [:]
    /// The segment being encoded, its encoder and the packets it has made.
    private var active: (segment: Int, encoder: Encoder, packets: [Packet])?
    /// Copied packets (with their segment) waiting for an earlier re-encoded segment.
    private var held: [(segment: Int, packet: Packet)] = []
    private(set) var framesWritten = 0

    /// The sample description every row's video carries: the input's avcC with the splice
    /// encoder's SPS and PPS added, and the encoder configuration that makes them.
    static func sampleDescription(input: InputStream, plan: SharedSegmentPlan, settings: EncodeSettings, output: OutputTarget)
        throws -> (avcC: [UInt8], configuration: VideoEncoderConfiguration) {
        let record = try AVCConfigurationRecord(input.extradata)
        let id = try H264ParameterSetIDs.free(usedBy: record.sequenceParameterSets + record.pictureParameterSets)
        let splice = SpliceEncoderSettings(
            input: .init(codec: .h264, profileName: input.profileName, level: input.level, reorderDelay: 0,
                         gopFrames: plan.longestGOP, matchedBitRate: plan.bitRate),
            crf: settings.crf, bitRate: settings.bitRate, preset: settings.preset, spsID: id)
        var configuration = try VideoEncoderConfiguration(reencoding: input.video, settings: settings, target: output)
        configuration.encoderName = splice.encoderName
        configuration.options = splice.options
        configuration.bitRate = splice.bitRate
        guard configuration.pixelFormat == input.video.pixelFormat, configuration.width == input.video.width,
              configuration.height == input.video.height else {
            throw SharedSegmentPlan.Refusal(reason: "x264 cannot encode the input's \(input.video.pixelFormat) \(input.video.width)×\(input.video.height) pictures as they are")
        }
        let probe = try Encoder(configuration, file: output.path)
        return (try record.adding(encoderHeader: probe.extradata).bytes, configuration)
    }

    init(plan: SharedSegmentPlan, marked: [Bool], marker: FrameMarker, configuration: VideoEncoderConfiguration,
         sink: PacketSink, input: InputStream, segmenter: HLSSegmenter, file: String) throws {
        self.plan = plan
        self.marked = marked
        self.marker = marker
        self.configuration = configuration
        self.sink = sink
        copier = try StreamCopier(from: input, to: sink, file: file)
        inputTimeBase = input.timeBase
        self.segmenter = segmenter
        self.file = file
        scratchFrame = try Frame()
        scratchPacket = try Packet()
    }

    /// Segments this row re-encodes.
    var markedSegmentCount: Int { marked.filter { $0 }.count }

    /// An input video packet: copied when its segment is unmarked, else remembered for its times.
    func pass(_ packet: Packet) throws {
        guard let pts = packet.presentationTimestamp else { return }
        if packet.isKeyframe, let index = plan.segment(startingAt: pts) { packetSegment = index }
        if marked[packetSegment] {
            replaced[packetSegment, default: []].append(.init(pts: pts, dts: packet.decodeTimestamp ?? pts, duration: packet.duration))
            return
        }
        framesWritten += 1
        if active != nil || replaced.keys.contains(where: { $0 < packetSegment }) {
            held.append((packetSegment, try packet.retained(file: file)))
        } else {
            segmenter.videoPacketsAreReencoded = false
            try copier.copy(packet)
        }
    }

    /// A decoded picture: marked and encoded when its segment is marked.
    func consume(_ timed: VideoSource.TimedFrame) throws {
        let index = plan.segment(ofPicture: timed.pts)
        if let active, active.segment != index { try finishSegment() }
        guard marked[index] else { return }
        let first = active == nil
        if first { active = (index, try Encoder(configuration, file: file), []) }
        try scratchFrame.reference(timed.frame, file: file)
        defer { scratchFrame.unref() }
        let picture = try marker.mark(scratchFrame, at: timed.time)
        picture.presentationTimestamp = timed.pts
        if first { picture.requestKeyframe() } else { picture.clearPictureType() }
        try active!.encoder.send(picture)
        try collect()
        framesWritten += 1
    }

    private func collect() throws {
        guard let encoder = active?.encoder else { return }
        while try encoder.receive(into: scratchPacket) == .produced {
            active!.packets.append(try scratchPacket.retained(file: file))
            scratchPacket.unref()
        }
    }

    /// Drains the segment's encoder and writes its packets with the input's times, then the
    /// copied packets that waited for it.
    private func finishSegment() throws {
        guard let (index, encoder, _) = active else { return }
        try encoder.send(nil)
        try collect()
        let packets = active!.packets
        active = nil
        let originals = replaced.removeValue(forKey: index) ?? []
        guard packets.count == originals.count else {
            throw OutputError(file: file, stage: .writing, detail: "segment \(index + 1): \(packets.count) pictures re-encoded for \(originals.count) input packets")
        }
        let durations = Dictionary(originals.map { ($0.pts, $0.duration) }, uniquingKeysWith: { a, _ in a })
        segmenter.videoPacketsAreReencoded = true
        for (packet, original) in zip(packets, originals) {
            let pts = packet.presentationTimestamp ?? original.pts
            // A re-encoded picture takes the decode time and duration of the input packet it replaces.
            try packet.replaceData(with: lengthPrefixed(annexBUnits(Array(packet.bytes))), file: file)
            packet.presentationTimestamp = pts
            packet.decodeTimestamp = original.dts
            packet.duration = durations[pts] ?? packet.duration
            try sink.write(packet, timeBase: encoder.timeBase)
        }
        try releaseHeld()
    }

    /// Writes the held copied packets that no re-encoded segment still precedes.
    private func releaseHeld() throws {
        let barrier = replaced.keys.min() ?? Int.max
        segmenter.videoPacketsAreReencoded = false
        while let first = held.first, first.segment < barrier {
            held.removeFirst()
            try copier.copy(first.packet)
        }
    }

    /// Ends the video: the last re-encoded segment and whatever waited for it.
    func finish() throws {
        try finishSegment()
        try releaseHeld()
        if let segment = replaced.keys.min() {
            throw OutputError(file: file, stage: .writing, detail: "segment \(segment + 1): no picture was decoded to re-encode")
        }
    }
}
