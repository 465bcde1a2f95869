import Animation
import Foundation
import Testing
@testable import VideoWM

/// The pure parts of making segments alone: the plan (cuts, positions, decode ranges, decode
/// times) and the fMP4 media-segment writer.
@Suite("presentation plans and media segments")
struct PresentationPlanTests {
    /// 30 fps in a 1/15360 time base (512 ticks a picture), GOPs of `gop` pictures with B-frames in
    /// x264's decode order (I P B B … per GOP: each P before the two B-frames it follows).
    static func packets(pictures: Int, gop: Int) -> [IndexedVideoPacket] {
        var out: [IndexedVideoPacket] = []
        var start = 0
        while start < pictures {
            let end = min(start + gop, pictures)
            out.append(IndexedVideoPacket(pts: Int64(start) * 512, duration: 512, isKeyframe: true, nal: PacketNALSummary(isIDR: true)))
            var i = start + 1
            while i < end {
                let p = min(i + 2, end - 1)
                out.append(IndexedVideoPacket(pts: Int64(p) * 512, duration: 512, isKeyframe: false))
                for b in i..<p { out.append(IndexedVideoPacket(pts: Int64(b) * 512, duration: 512, isKeyframe: false)) }
                i = p + 1
            }
            start = end
        }
        return out
    }

    static let timeBase = Rational(1, 15360)

    @Test func sharedCopiesCutAtClosedIDRsAndCopyWholeRuns() throws {
        let packets = Self.packets(pictures: 600, gop: 60)
        let plan = try PresentationPlan.make(.sharedCopies, packets: packets, idr: { packets[$0].isKeyframe }, timeBase: Self.timeBase,
                                             firstTimestamp: 0, target: PresentationTime(value: 6, timescale: 1))
        #expect(plan.cuts == [0, 180, 360, 540].map { Int64($0) * 512 })
        #expect(plan.positions == [0..<180, 180..<360, 360..<540, 540..<600])
        // A closed segment is decoded from its own first packet.
        #expect(plan.decodedPackets == plan.positions)
        #expect(plan.plannedSegments.map(\.duration) == [6, 6, 6, 2].map { PresentationTime(value: $0, timescale: 1) })
        #expect(plan.independent.allSatisfy { $0 })
    }

    @Test func encodedCutsFallOnPicturesAndDecodeFromTheKeyframeBefore() throws {
        let packets = Self.packets(pictures: 300, gop: 100)
        let plan = try PresentationPlan.make(.encoded, packets: packets, idr: { _ in false }, timeBase: Self.timeBase,
                                             firstTimestamp: 0, target: PresentationTime(value: 2, timescale: 1))
        // Every 60 pictures, though the keyframes are every 100.
        #expect(plan.cuts == [0, 60, 120, 180, 240].map { Int64($0) * 512 })
        #expect(plan.positions == [0..<60, 60..<120, 120..<180, 180..<240, 240..<300])
        // Segment 1 (pictures 60…119) starts decoding at the keyframe of picture 0 and runs to picture 100's GOP.
        #expect(plan.decodedPackets[1].lowerBound == 0 && plan.decodedPackets[2].lowerBound == 100)
        for (k, range) in plan.decodedPackets.enumerated() {
            let shown = packets[range].map(\.pts)
            #expect(plan.pictureTimestamps[plan.positions[k]].allSatisfy(shown.contains), "segment \(k) lacks a picture")
        }
        // One continuous encoder's decode times, with a reorder delay of 2: the pictures' two places back.
        let dts = plan.encodedDecodeTimestamps(reorderDelay: 2)
        #expect(dts.prefix(4) == [-1024, -512, 0, 512])
        #expect(zip(dts, plan.pictureTimestamps).allSatisfy { $0 <= $1 })
    }

    @Test func otherStreamsBelongToTheSegmentWhoseSpanHoldsThem() throws {
        let packets = Self.packets(pictures: 120, gop: 60)
        let plan = try PresentationPlan.make(.sharedCopies, packets: packets, idr: { packets[$0].isKeyframe }, timeBase: Self.timeBase,
                                             firstTimestamp: 0, target: PresentationTime(value: 2, timescale: 1))
        let audio = Rational(1, 48000)
        #expect(plan.segment(containing: -1024, in: audio) == 0)
        #expect(plan.segment(containing: 95_999, in: audio) == 0)
        #expect(plan.segment(containing: 96_000, in: audio) == 1)
        #expect(plan.segment(containing: 10_000_000, in: audio) == 1)
    }

    @Test func aMediaSegmentIsAPureFunctionOfItsSamples() {
        var video = MediaSegmentWriter.Track(id: 1, baseDecodeTime: 61440)
        let pictures: [[UInt8]] = [[1, 2, 3], [4, 5], [6]]
        for (n, bytes) in pictures.enumerated() {
            bytes.withUnsafeBytes { video.append($0, duration: 512, compositionOffset: n == 0 ? 1024 : 0, isSync: n == 0) }
        }
        var audio = MediaSegmentWriter.Track(id: 2, baseDecodeTime: 193_536)
        [UInt8](repeating: 9, count: 4).withUnsafeBytes { audio.append($0, duration: 1024, compositionOffset: 0, isSync: true) }
        let bytes = MediaSegmentWriter.segment(sequenceNumber: 2, tracks: [audio, video])
        #expect(bytes == MediaSegmentWriter.segment(sequenceNumber: 2, tracks: [video, audio]), "tracks are ordered by id")
        // moof first, mdat last holding the video's bytes then the audio's.
        #expect(Array(bytes[4..<8]) == Array("moof".utf8))
        let types = bytes.withUnsafeBytes { FragmentedMP4.topLevelTypes(of: $0) }
        #expect(types == ["moof", "mdat"])
        #expect(Array(bytes.suffix(10)) == [1, 2, 3, 4, 5, 6, 9, 9, 9, 9])
        // mfhd's sequence number, right after moof's and mfhd's headers.
        #expect(Array(bytes[20..<24]) == [0, 0, 0, 2])
        // Each trun's data offset points at its track's first byte (counted from the moof).
        func trunOffsets() -> [Int] {
            var offsets: [Int] = []
            var i = 0
            while i + 4 <= bytes.count {
                if Array(bytes[i..<i + 4]) == Array("trun".utf8) {
                    let at = i + 4 + 4 + 4
                    offsets.append(Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
                }
                i += 1
            }
            return offsets
        }
        let offsets = trunOffsets()
        #expect(offsets.count == 2)
        #expect(offsets.count == 2 && bytes[offsets[0]] == 1 && bytes[offsets[1]] == 9)
    }

    @Test("several timestamp jumps read as one sentence")
    func severalJumpsReadAsASentence() {
        let one = VideoSource.timestampJumpNotice(path: "in.ts", jumps: [(12, 1.5)])
        #expect(one == "in.ts: timestamps jump at 12.000 s; later times shifted by +1.500 s so every frame follows on")
        let three = VideoSource.timestampJumpNotice(path: "in.ts", jumps: [(12, -2), (20, 3), (31, 1)])
        #expect(three == "in.ts: timestamps jump 3 times (first at 12.000 s, shifted by \u{2212}2.000 s); each later stretch is shifted so every frame follows on")
        #expect(VideoSource.timestampJumpNotice(path: "in.ts", jumps: []) == nil)
    }
}
