import Animation
import Foundation
import Overlay

/// Where a batch's HLS presentations are cut when their unmarked segments are shared: the same
/// instants for every row, taken from the input alone, so that a segment in which a row shows
/// no mark is the input's own packets at the same position — byte for byte the same segment
/// for every row, stored once (docs/hls.md, sections 4, 6 and 11).
///
/// The cuts are the input's H.264 IDR pictures that start a closed stretch (no packet before
/// it in decode order is shown after it, none after it before it), the one nearest each
/// `--segment` target (`SegmentBoundaries`). A row re-encodes a whole segment when one of its
/// marks is visible on any picture of it (`markedSegments`), so the cuts do not depend on the
/// row and a row's marks never change another row's segments.
struct SharedSegmentPlan {
    /// One video packet of the input, in decode order.
    struct InputPacket: Equatable {
        var pts: Int64
        var dts: Int64
        var duration: Int64
    }

    /// The input's video time base.
    let timeBase: Rational
    /// The earliest presentation timestamp: time zero of the marks' clock (as `VideoSource`'s).
    let firstTimestamp: Int64
    /// Presentation timestamps of the pictures that start segments, ascending.
    let cuts: [Int64]
    /// Every picture's presentation timestamp, ascending.
    let pictures: [Int64]
    /// Where the last picture ends (its timestamp plus its duration).
    let endTimestamp: Int64
    /// The input's video bit rate, bits per second (what re-encoded segments aim at without --crf).
    let bitRate: Int
    /// The input's longest distance between keyframes, in pictures.
    let longestGOP: Int

    /// Why the unmarked segments of this input cannot be shared.
    struct Refusal: Error, CustomStringConvertible {
        var reason: String
        /// An option asked for what copied packets cannot give (another codec, size, rate control):
        /// the full render is then what the user asked for, not a fallback worth a notice.
        var askedByOptions = false
        var description: String { reason }
    }

    /// Reads the input's video packets (a demux pass, nothing decoded) and plans the cuts.
    static func make(input: InputStream, target: PresentationTime) throws -> Result<SharedSegmentPlan, Refusal> {
        guard input.codec == .h264 else { return .failure(Refusal(reason: "the input's video is \(input.codec.name), not H.264")) }
        guard let record = try? AVCConfigurationRecord(input.extradata), record.lengthSize == 4 else {
            return .failure(Refusal(reason: "the input's H.264 has no MP4 sample description (avcC) to extend"))
        }
        let file = try InputFile(path: input.file.path)
        let stream = input.index
        let packet = try Packet()
        var packets: [InputPacket] = []
        var keyframes: [Int] = []
        var bytes = 0
        while try file.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream else { continue }
            guard let pts = packet.presentationTimestamp else { return .failure(Refusal(reason: "a video packet has no presentation time")) }
            let summary = packet.bytes.withUnsafeBytes { PacketNALSummary(packet: $0, framing: .lengthPrefixed(bytes: 4), codec: .h264) }
            if packet.isKeyframe && summary.isIDR { keyframes.append(packets.count) }
            packets.append(InputPacket(pts: pts, dts: packet.decodeTimestamp ?? pts, duration: packet.duration))
            bytes += packet.bytes.count
        }
        guard !packets.isEmpty, keyframes.first == 0 else {
            return .failure(Refusal(reason: "the video does not start with an IDR picture"))
        }
        return .success(plan(packets: packets, idrPackets: keyframes, timeBase: input.timeBase, bytes: bytes, target: target))
    }

    /// The plan for `packets` (decode order) whose `idrPackets` (indices) are IDR pictures.
    static func plan(packets: [InputPacket], idrPackets: [Int], timeBase: Rational, bytes: Int, target: PresentationTime) -> SharedSegmentPlan {
        // A closed cut: everything decoded before it is shown before it, everything after at or after it.
        var suffixMinimum = [Int64](repeating: .max, count: packets.count + 1)
        for i in stride(from: packets.count - 1, through: 0, by: -1) { suffixMinimum[i] = min(suffixMinimum[i + 1], packets[i].pts) }
        var prefixMaximum = Int64.min
        var closed: [Int64] = []
        var next = 0
        for (i, p) in packets.enumerated() {
            if next < idrPackets.count && idrPackets[next] == i {
                next += 1
                if prefixMaximum < p.pts && suffixMinimum[i] >= p.pts { closed.append(p.pts) }
            }
            prefixMaximum = max(prefixMaximum, p.pts)
        }
        let pictures = packets.map(\.pts).sorted()
        let first = pictures[0]
        let last = packets.max { $0.pts < $1.pts }!
        func time(_ pts: Int64) -> PresentationTime {
            FrameClock.time(ofTimestamp: pts, firstTimestamp: first, timeBaseNumerator: Int64(timeBase.numerator), timeBaseDenominator: Int64(timeBase.denominator))
        }
        let ptsByTime = Dictionary(closed.map { (time($0), $0) }, uniquingKeysWith: { a, _ in a })
        let end = time(last.pts + max(last.duration, 1))
        let cutTimes = SegmentBoundaries.plan(keyframes: closed.map(time), edges: [], end: end, target: target)
        let seconds = max(end.seconds, 0.001)
        var longest = 1
        for (a, b) in zip(idrPackets, idrPackets.dropFirst() + [packets.count]) { longest = max(longest, b - a) }
        return SharedSegmentPlan(timeBase: timeBase, firstTimestamp: first, cuts: cutTimes.compactMap { ptsByTime[$0] }, pictures: pictures,
                                 endTimestamp: last.pts + max(last.duration, 1), bitRate: Int(Double(bytes * 8) / seconds), longestGOP: longest)
    }

    /// The segment holding the picture presented at `pts`.
    func segment(ofPicture pts: Int64) -> Int {
        var low = 0, high = cuts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if cuts[middle] <= pts { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The index of the segment a keyframe at `pts` starts, nil when it starts none.
    func segment(startingAt pts: Int64) -> Int? {
        let index = segment(ofPicture: pts)
        return cuts[index] == pts ? index : nil
    }

    /// Where each segment starts on the output's clock (the input's timestamps): `HLSSegmenter`'s cuts.
    var cutTimes: [PresentationTime] {
        cuts.map { PresentationTime(value: $0 * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator)) }
    }

    /// How much of the video the segments flagged in `marked` cover: what a row re-encodes.
    func reencodedSeconds(marked: [Bool]) -> (reencoded: Double, total: Double) {
        let bounds = cuts + [endTimestamp]
        var ticks: Int64 = 0
        for (index, isMarked) in marked.enumerated() where isMarked && index + 1 < bounds.count { ticks += bounds[index + 1] - bounds[index] }
        return (timeBase.seconds(ticks), timeBase.seconds(endTimestamp - cuts[0]))
    }

    /// For each segment, whether `compositor` draws a mark on some picture of it.
    func markedSegments(by compositor: Compositor) -> [Bool] {
        var marked = [Bool](repeating: false, count: cuts.count)
        guard !compositor.isEmpty else { return marked }
        for pts in pictures {
            let index = segment(ofPicture: pts)
            if marked[index] { continue }
            let time = FrameClock.time(ofTimestamp: pts, firstTimestamp: firstTimestamp,
                                       timeBaseNumerator: Int64(timeBase.numerator), timeBaseDenominator: Int64(timeBase.denominator))
            if compositor.drawsAnything(at: time) { marked[index] = true }
        }
        return marked
    }
}

/// What every row of a batch shares when its HLS presentations share their unmarked segments:
/// the cuts, and the sample description and encoder set-up of re-encoded segments (so every
/// row's initialization segment is the same file too).
struct SegmentSharing {
    let plan: SharedSegmentPlan
    let sampleDescription: [UInt8]
    let configuration: VideoEncoderConfiguration

    /// What a row marked by `compositor` re-encodes, as smart rendering reports it.
    func outcome(markedBy compositor: Compositor) -> RenderOutcome {
        let (reencoded, total) = plan.reencodedSeconds(marked: plan.markedSegments(by: compositor))
        return RenderOutcome(isSmart: true, notice: nil, reencodedSeconds: reencoded, totalSeconds: total)
    }

    /// The sharing for `source` written to `output` (a row's playlist), or why there is none.
    static func prepare(source: VideoSource, settings: EncodeSettings, target: PresentationTime, output: OutputTarget) throws -> Result<SegmentSharing, SharedSegmentPlan.Refusal> {
        if let codec = settings.codec, codec != .h264 {
            return .failure(.init(reason: "--codec \(codec.rawValue) asks for another codec than the input's", askedByOptions: true))
        }
        if settings.copyCannotHonour {
            return .failure(.init(reason: "a size or encoder control option asks for a change the input's own packets cannot have",
                                  askedByOptions: true))
        }
        let plan: SharedSegmentPlan
        switch try SharedSegmentPlan.make(input: source.stream, target: target) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let made): plan = made
        }
        do {
            let (description, configuration) = try SegmentwiseVideo.sampleDescription(input: source.stream, plan: plan, settings: settings, output: output)
            return .success(SegmentSharing(plan: plan, sampleDescription: description, configuration: configuration))
        } catch let refusal as SharedSegmentPlan.Refusal {
            return .failure(refusal)
        } catch let error as ParameterSetError {
            return .failure(.init(reason: error.description))
        }
    }
}
