/// The NAL unit types in one H.264 or HEVC packet, read without decoding, for the smart-rendering index.
///
/// MP4 and Matroska store NAL units behind a big-endian length of 1–4 bytes (the size the
/// avcC/hvcC record names); MPEG-TS stores them in Annex B form, behind 00 00 01 start codes.
enum NALFraming: Sendable, Equatable {
    case lengthPrefixed(bytes: Int)
    case annexB
}

/// The byte offsets of each NAL unit's payload (header first) in `bytes`; malformed lengths end the scan.
func nalUnitRanges(in bytes: UnsafeRawBufferPointer, framing: NALFraming) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    switch framing {
    case .lengthPrefixed(let lengthBytes):
        precondition((1...4).contains(lengthBytes), "NAL length fields are 1 to 4 bytes")
        var offset = 0
        while offset + lengthBytes <= bytes.count {
            var length = 0
            for i in 0..<lengthBytes { length = length << 8 | Int(bytes[offset + i]) }
            let start = offset + lengthBytes
            guard length > 0, start + length <= bytes.count else { break }
            ranges.append(start..<start + length)
            offset = start + length
        }
    case .annexB:
        var starts: [Int] = []
        var i = 0
        while i + 2 < bytes.count {
            if bytes[i] == 0, bytes[i + 1] == 0, bytes[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        for (n, start) in starts.enumerated() {
            var end = n + 1 < starts.count ? starts[n + 1] - 3 : bytes.count
            // Trailing zero bytes belong to the next start code (00 00 00 01), not to this unit.
            while n + 1 < starts.count, end > start, bytes[end - 1] == 0 { end -= 1 }
            if end > start { ranges.append(start..<end) }
        }
    }
    return ranges
}

/// What the index needs from one packet's NAL units.
struct PacketNALSummary: Sendable, Equatable {
    /// The picture is an H.264 IDR or an HEVC IDR_W_RADL/IDR_N_LP.
    var isIDR = false
    /// HEVC CRA (21): a random access point whose RASL pictures reference the previous GOP.
    var isCRA = false
    /// HEVC BLA (16–18).
    var isBLA = false
    /// HEVC RASL_N/RASL_R (8, 9): skipped leading pictures that reference across their CRA.
    var isRASL = false
    /// H.264: the packet carries a recovery point SEI with recovery_frame_cnt 0, i.e. decoding from
    /// it shows every picture from it on correctly (x264's `open-gop=1` keyframes, broadcast I pictures).
    var isRecoveryPoint = false

    init(isIDR: Bool = false, isCRA: Bool = false, isBLA: Bool = false, isRASL: Bool = false, isRecoveryPoint: Bool = false) {
        self.isIDR = isIDR
        self.isCRA = isCRA
        self.isBLA = isBLA
        self.isRASL = isRASL
        self.isRecoveryPoint = isRecoveryPoint
    }

    init(packet bytes: UnsafeRawBufferPointer, framing: NALFraming, codec: VideoCodec) {
        for range in nalUnitRanges(in: bytes, framing: framing) {
            guard let type = codec.nalUnitType(ofHeaderByte: bytes[range.lowerBound]) else { return }
            switch (codec, type) {
            case (.h264, 5): isIDR = true
            case (.h264, 6):
                let unit = Array(bytes[range])
                if h264RecoveryFrameCount(sei: unit[...]) == 0 { isRecoveryPoint = true }
            case (.hevc, 19), (.hevc, 20): isIDR = true
            case (.hevc, 21): isCRA = true
            case (.hevc, 16...18): isBLA = true
            case (.hevc, 8), (.hevc, 9): isRASL = true
            default: break
            }
        }
    }
}
