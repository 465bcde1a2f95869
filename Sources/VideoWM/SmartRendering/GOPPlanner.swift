/// Smart rendering's plan: which packets of the input's video are re-encoded, and how the seams are made legal.
///
/// Works from a packet index alone (timestamps, key flags, NAL unit types), never from decoded
/// pictures. The rules, and the experiments behind them, are in docs/design/smart-rendering.md:
/// a span of re-encoded GOPs may start at any keyframe; the first copied GOP after it must not
/// reference the span and must be a legal place to switch parameter sets.

/// One video packet of the input, in decode order, as the planner needs it.
struct IndexedVideoPacket: Sendable, Equatable {
    var pts: Int64
    var duration: Int64
    var isKeyframe: Bool
    var nal: PacketNALSummary

    init(pts: Int64, duration: Int64, isKeyframe: Bool, nal: PacketNALSummary = PacketNALSummary()) {
        self.pts = pts
        self.duration = duration
        self.isKeyframe = isKeyframe
        self.nal = nal
    }
}

/// A run of re-encoded GOPs.
struct ReencodedSpan: Sendable, Equatable {
    /// Decode-order indices of the packets whose pictures are re-encoded, ascending.
    var replacedPackets: [Int]
    /// Packets fed to the decoder: from a keyframe at or before the span (one GOP earlier when the
    /// span's first GOP has leading pictures) to the last replaced packet. Pictures decoded from
    /// packets that are not replaced are only references and are thrown away.
    var decodedPackets: Range<Int>
    /// The copied keyframe right after the span when it is an HEVC CRA, and the BLA NAL unit type its
    /// slices get: BLA_W_RADL (17) when decodable leading pictures stay, else BLA_N_LP (18).
    var keyframeBecomingBLA: (packet: Int, nalType: Int)?
    /// The copied keyframe right after the span when it is an H.264 recovery-point I picture: it
    /// becomes an IDR, and the copied pictures after it are renumbered from it.
    var keyframeBecomingIDR: Int?

    init(replacedPackets: [Int], decodedPackets: Range<Int>, keyframeBecomingBLA: (packet: Int, nalType: Int)? = nil,
         keyframeBecomingIDR: Int? = nil) {
        self.replacedPackets = replacedPackets
        self.decodedPackets = decodedPackets
        self.keyframeBecomingBLA = keyframeBecomingBLA
        self.keyframeBecomingIDR = keyframeBecomingIDR
    }

    static func == (a: ReencodedSpan, b: ReencodedSpan) -> Bool {
        a.replacedPackets == b.replacedPackets && a.decodedPackets == b.decodedPackets
            && a.keyframeBecomingIDR == b.keyframeBecomingIDR
            && a.keyframeBecomingBLA?.packet == b.keyframeBecomingBLA?.packet
            && a.keyframeBecomingBLA?.nalType == b.keyframeBecomingBLA?.nalType
    }
}

/// Why a stream cannot be smart-rendered at all.
enum SmartPlanRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    case noPackets
    case doesNotStartWithKeyframe
    case marksInEveryGOP

    var description: String {
        switch self {
        case .noPackets: "the input has no video packets"
        case .doesNotStartWithKeyframe: "the video does not start with a keyframe"
        case .marksInEveryGOP: "a mark is visible in every GOP"
        }
    }
}

struct SmartPlan: Sendable, Equatable {
    var spans: [ReencodedSpan]
    var packetCount: Int
    /// Sums of the packets' durations, in the stream's time base.
    var reencodedDuration: Int64
    var totalDuration: Int64

    /// 0…1, the share of the video's duration that is re-encoded.
    var reencodedShare: Double {
        totalDuration > 0 ? Double(reencodedDuration) / Double(totalDuration) : 0
    }

    /// Plans the spans for `packets` (decode order); `isMarked(i)` says whether the picture of packet
    /// `i` shows a mark. Each codec has its seam rule: H.264's copied run must begin at an IDR
    /// (after a recovery-point I frame FFmpeg continues the old sequence's picture order and frame
    /// numbers, and the parameter sets may not change there); HEVC's at an IDR or at a CRA whose
    /// RASL pictures join the span and which becomes a BLA (a new coded video sequence); VP9's key
    /// frames reset every reference, so any is a seam.
    static func make(packets: [IndexedVideoPacket], codec: VideoCodec,
                            isMarked: (Int) -> Bool) throws(SmartPlanRefusal) -> SmartPlan {
        guard !packets.isEmpty else { throw .noPackets }
        guard packets[0].isKeyframe else { throw .doesNotStartWithKeyframe }
        let gops = GOP.split(packets)
        let seams = gops.map { seam(before: $0, packets: packets, codec: codec) }
        // A GOP is marked by its own pictures; marked leading pictures that a span ending before it
        // re-encodes anyway mark the GOP before it instead (that span ends there).
        var marked = [Bool](repeating: false, count: gops.count)
        for (n, gop) in gops.enumerated() {
            let extras = Set(seams[n]?.extraPackets ?? [])
            for packet in gop.packets where isMarked(packet) {
                if extras.contains(packet) && n > 0 { marked[n - 1] = true } else { marked[n] = true }
            }
        }
        if marked.allSatisfy({ $0 }) { throw .marksInEveryGOP }

        var spans: [ReencodedSpan] = []
        var g = 0
        while g < gops.count {
            guard marked[g] else { g += 1; continue }
            var end = g + 1
            // Grow the run until the GOP after it may be copied.
            while end < gops.count, marked[end] || seams[end] == nil { end += 1 }
            let seam = end < gops.count ? seams[end] ?? Seam() : Seam()
            var replaced = Array(gops[g].packets.lowerBound..<gops[end - 1].packets.upperBound)
            replaced += seam.extraPackets
            let first = gops[g]
            let decodeStart = !first.leadingPackets.isEmpty && g > 0 ? gops[g - 1].packets.lowerBound : first.packets.lowerBound
            spans.append(ReencodedSpan(replacedPackets: replaced, decodedPackets: decodeStart..<((replaced.last ?? decodeStart) + 1),
                                       keyframeBecomingBLA: seam.keyframeBecomingBLA, keyframeBecomingIDR: seam.keyframeBecomingIDR))
            g = end
        }
        let total = packets.reduce(Int64(0)) { $0 + max($1.duration, 0) }
        let reencoded = spans.reduce(Int64(0)) { sum, span in
            sum + span.replacedPackets.reduce(Int64(0)) { $0 + max(packets[$1].duration, 0) }
        }
        if spans.reduce(0, { $0 + $1.replacedPackets.count }) == packets.count { throw .marksInEveryGOP }
        return SmartPlan(spans: spans, packetCount: packets.count, reencodedDuration: reencoded, totalDuration: total)
    }

    /// What a span ending right before `gop` must do so that `gop` may be copied.
    struct Seam {
        /// Leading pictures of `gop` that reference the span: re-encoded as its last pictures, left out of the copy.
        var extraPackets: [Int] = []
        var keyframeBecomingBLA: (packet: Int, nalType: Int)?
        var keyframeBecomingIDR: Int?
    }

    /// How a span may end before `gop`, or nil when it may not (the span must take `gop` in too).
    static func seam(before gop: GOP, packets: [IndexedVideoPacket], codec: VideoCodec) -> Seam? {
        let keyIndex = gop.packets.lowerBound
        let key = packets[keyIndex]
        switch codec {
        case .vp9, .av1:
            return Seam()
        case .h264:
            if key.nal.isIDR { return Seam() }
            // A recovery-point I picture: its leading pictures reference the span, so they join it;
            // the keyframe starts a new sequence as an IDR, the pictures after it renumbered.
            guard key.nal.isRecoveryPoint else { return nil }
            return Seam(extraPackets: gop.leadingPackets, keyframeBecomingIDR: keyIndex)
        case .hevc:
            if key.nal.isIDR { return Seam() }
            guard key.nal.isCRA || key.nal.isBLA else { return nil }
            // Its RASL pictures reference the span: re-encoded as the span's last pictures and left
            // out of the copy; a CRA starts a new sequence as a BLA.
            let rasl = gop.leadingPackets.filter { packets[$0].nal.isRASL }
            let decodableLeadingStay = gop.leadingPackets.count > rasl.count
            return Seam(extraPackets: rasl, keyframeBecomingBLA: key.nal.isCRA ? (keyIndex, decodableLeadingStay ? 17 : 18) : nil)
        }
    }
}

/// A keyframe and the packets up to the next one, in decode order.
struct GOP: Equatable {
    var packets: Range<Int>
    /// Packets after the keyframe in decode order but shown before it (an open GOP's leading pictures).
    var leadingPackets: [Int]

    static func split(_ packets: [IndexedVideoPacket]) -> [GOP] {
        var starts = packets.indices.filter { packets[$0].isKeyframe }
        if starts.first != 0 { starts.insert(0, at: 0) }
        return starts.enumerated().map { n, start in
            let end = n + 1 < starts.count ? starts[n + 1] : packets.count
            let keyPTS = packets[start].pts
            return GOP(packets: start..<end, leadingPackets: (start + 1..<end).filter { packets[$0].pts < keyPTS })
        }
    }
}
