import Foundation
import Testing
import Animation
@testable import Media
@testable import VideoWM

private func s(_ seconds: Int64) -> PresentationTime { PresentationTime(value: seconds, timescale: 1) }
private func ms(_ milliseconds: Int64) -> PresentationTime { PresentationTime(milliseconds: milliseconds) }

@Suite struct MediaPlaylistTests {
    let playlist = MediaPlaylist(initializationURI: "../shared-segments/init-0123456789abcdef.mp4", segments: [
        .init(uri: "alice-00112233445566aa.m4s", duration: PresentationTime(value: 180180, timescale: 30000)),
        .init(uri: "../shared-segments/8899aabbccddeeff.m4s", duration: PresentationTime(value: 30720, timescale: 15360)),
    ], independentSegments: true)

    @Test func writesVersionTargetMapExactDurationsAndEnd() {
        #expect(playlist.text == """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-TARGETDURATION:7
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MAP:URI="../shared-segments/init-0123456789abcdef.mp4"
            #EXTINF:6.006000,
            alice-00112233445566aa.m4s
            #EXTINF:2.000000,
            ../shared-segments/8899aabbccddeeff.m4s
            #EXT-X-ENDLIST

            """)
    }

    @Test func targetDurationIsTheLongestSegmentRoundedUp() {
        func target(_ durations: [PresentationTime]) -> Int {
            MediaPlaylist(initializationURI: "i.mp4", segments: durations.map { .init(uri: "x.m4s", duration: $0) }, independentSegments: true).targetDurationSeconds
        }
        #expect(target([s(6), s(6), ms(2000)]) == 6)
        #expect(target([ms(6001)]) == 7)
        #expect(target([PresentationTime(value: 1, timescale: 90000)]) == 1)
        #expect(target([ms(5499), ms(5500)]) == 6)
    }

    @Test func readsBackWhatItWrites() throws {
        let read = try MediaPlaylist(parsing: playlist.text)
        #expect(read.initializationURI == playlist.initializationURI)
        #expect(read.segments.map(\.uri) == playlist.segments.map(\.uri))
        #expect(read.segments.map(\.duration) == [ms(6006), s(2)])
        #expect(read.totalDuration == ms(8006))
        #expect(read.independentSegments)
    }

    @Test func refusesWhatItCannotReadFaithfully() {
        #expect(throws: PlaylistParseProblem.notAPlaylist) { try MediaPlaylist(parsing: "hello\n") }
        #expect(throws: PlaylistParseProblem.multivariant) {
            try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nv.m3u8\n")
        }
        #expect(throws: PlaylistParseProblem.notFinished) {
            try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:6,\na.m4s\n")
        }
        #expect(throws: PlaylistParseProblem.noInitializationSection) {
            try MediaPlaylist(parsing: "#EXTM3U\n#EXTINF:6,\na.ts\n#EXT-X-ENDLIST\n")
        }
        #expect(throws: PlaylistParseProblem.byteRanges) {
            try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:6,\n#EXT-X-BYTERANGE:100@0\na.m4s\n#EXT-X-ENDLIST\n")
        }
        #expect(throws: PlaylistParseProblem.badLine(number: 3, text: "#EXTINF:six,")) {
            try MediaPlaylist(parsing: "#EXTM3U\n#EXT-X-MAP:URI=\"i.mp4\"\n#EXTINF:six,\na.m4s\n#EXT-X-ENDLIST\n")
        }
    }
}

@Suite struct SegmentBoundaryTests {
    let everyTwoSeconds = stride(from: Int64(0), to: 60, by: 2).map { s($0) }

    @Test func regularGOPsGiveTargetLengthSegments() {
        let cuts = SegmentBoundaries.plan(keyframes: everyTwoSeconds, edges: [], end: s(60), target: s(6))
        #expect(cuts == stride(from: Int64(0), to: 60, by: 6).map { s($0) })
    }

    @Test func spanEdgesAreAlwaysCuts() {
        let cuts = SegmentBoundaries.plan(keyframes: everyTwoSeconds, edges: [s(10), s(16)], end: s(60), target: s(6))
        #expect(cuts == [0, 6, 10, 16, 22, 28, 34, 40, 46, 52, 58].map { s($0) })
        let aligned = SegmentBoundaries.plan(keyframes: everyTwoSeconds, edges: [s(30), s(36)], end: s(60), target: s(6))
        #expect(aligned == stride(from: Int64(0), to: 60, by: 6).map { s($0) })
    }

    @Test func theNearestKeyframeWinsEvenJustPastTheTarget() {
        let ntsc = (0..<30).map { PresentationTime(value: Int64($0) * 60060, timescale: 30000) }
        let cuts = SegmentBoundaries.plan(keyframes: ntsc, edges: [], end: PresentationTime(value: 30 * 60060, timescale: 30000), target: s(6))
        #expect(cuts.count == 10)
        #expect(cuts[1] == ms(6006))
    }

    @Test func longGOPsMakeLongSegmentsAndUnevenOnesTheNearest() {
        let sceneCuts = [0, 8333, 16667, 20000, 31000].map { ms($0) }
        let cuts = SegmentBoundaries.plan(keyframes: sceneCuts, edges: [], end: s(40), target: s(6))
        #expect(cuts == [0, 8333, 16667, 20000, 31000].map { ms($0) })
    }

    @Test func aShortInputIsOneSegment() {
        #expect(SegmentBoundaries.plan(keyframes: [s(0), s(2)], edges: [], end: s(4), target: s(6)) == [s(0)])
        #expect(SegmentBoundaries.plan(keyframes: [], edges: [], end: s(4), target: s(6)) == [])
    }

    @Test func cutsAreKeyframesAscendingAndIncludeEveryEdge() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var t: Int64 = 0
            var keys: [PresentationTime] = []
            for _ in 0..<Int.random(in: 1...40, using: &generator) {
                keys.append(ms(t))
                t += Int64.random(in: 200...9000, using: &generator)
            }
            let edges = keys.filter { _ in Bool.random(using: &generator) && Bool.random(using: &generator) }
            let cuts = SegmentBoundaries.plan(keyframes: keys, edges: edges, end: ms(t), target: ms(Int64.random(in: 1000...10000, using: &generator)))
            #expect(cuts.first == keys.first)
            #expect(cuts == cuts.sorted() && Set(cuts).count == cuts.count)
            #expect(Set(cuts).isSubset(of: Set(keys)))
            #expect(Set(edges).isSubset(of: Set(cuts)))
        }
    }
}

@Suite struct PresentationLayoutTests {
    @Test func plainNamesStayAndOthersAreReducedWithAHash() {
        #expect(PresentationLayout.safePrefix("lecture-01") == "lecture-01")
        let email = PresentationLayout.safePrefix("ada@example.com")
        #expect(email.hasPrefix("ada_example.com-") && email.count == "ada_example.com-".count + 8)
        #expect(PresentationLayout.safePrefix("a b") != PresentationLayout.safePrefix("a_b"))
        #expect(PresentationLayout.safePrefix(".hidden").hasPrefix("_hidden-"))
        #expect(PresentationLayout.safePrefix("").hasPrefix("-"))
    }

    @Test func ownFilesAreRecognisedByPrefixAndHashOnly() throws {
        let layout = try PresentationLayout(playlist: "/tmp/alice.m3u8", sharedFolder: nil)
        #expect(layout.isOwnFile("alice-0123456789abcdef.m4s"))
        #expect(layout.isOwnFile("alice-init-0123456789abcdef.mp4"))
        #expect(!layout.isOwnFile("alice-0123456789abcdeg.m4s"))
        #expect(!layout.isOwnFile("alice-extra-0123456789abcdef.m4s"))
        #expect(!layout.isOwnFile("alice.m3u8"))
        #expect(!layout.isOwnFile("bob-0123456789abcdef.m4s"))
        let other = try PresentationLayout(playlist: "/tmp/alice-init.m3u8", sharedFolder: nil)
        #expect(!other.isOwnFile("alice-init-0123456789abcdef.mp4"))
    }

    @Test func sharedFolderURIsAreRelative() throws {
        let root = NSTemporaryDirectory() + "layout-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: root) }
        for folder in ["out/alice", "out/shared-segments", "out/my shared"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        let nested = try PresentationLayout(playlist: root + "/out/alice/index.m3u8", sharedFolder: root + "/out/shared-segments")
        #expect(nested.uri(sharedFile: "init-0123456789abcdef.mp4") == "../shared-segments/init-0123456789abcdef.mp4")
        let flat = try PresentationLayout(playlist: root + "/out/alice.m3u8", sharedFolder: root + "/out/shared-segments")
        #expect(flat.uri(sharedFile: "x.m4s") == "shared-segments/x.m4s")
        let same = try PresentationLayout(playlist: root + "/out/alice.m3u8", sharedFolder: root + "/out")
        #expect(same.uri(sharedFile: "x.m4s") == "x.m4s")
        #expect(throws: PresentationLayout.Problem.sharedFolderNeedsEscaping(relativePath: "my shared/")) {
            try PresentationLayout(playlist: root + "/out/alice.m3u8", sharedFolder: root + "/out/my shared")
        }
    }
}

@Suite struct ContentAndBoxTests {
    @Test func sha256MatchesTheStandardVectors() {
        #expect(ContentName.hex(ContentDigest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(ContentName.hex(ContentDigest.sha256([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(ContentName.of(Array("abc".utf8)) == "ba7816bf8f01cfea")
    }

    @Test func initializationEndsAtTheFirstMediaBox() {
        func box(_ type: String, _ payload: Int) -> [UInt8] {
            let size = UInt32(8 + payload)
            return [UInt8(size >> 24), UInt8(size >> 16 & 255), UInt8(size >> 8 & 255), UInt8(size & 255)] + Array(type.utf8) + [UInt8](repeating: 0, count: payload)
        }
        let bytes = box("ftyp", 12) + box("moov", 100) + box("moof", 40) + box("mdat", 7)
        #expect(bytes.withUnsafeBytes { FragmentedMP4.initializationLength(of: $0) } == 20 + 108)
        #expect(bytes.withUnsafeBytes { FragmentedMP4.topLevelTypes(of: $0) } == ["ftyp", "moov", "moof", "mdat"])
        #expect(Array(bytes.dropLast()).withUnsafeBytes { FragmentedMP4.topLevelTypes(of: $0) } == nil)
        #expect((box("ftyp", 0) + box("moov", 0)).withUnsafeBytes { FragmentedMP4.initializationLength(of: $0) } == 16)
    }

    @Test func publishingWritesOnceAndRefusesADifferentFile() throws {
        let folder = NSTemporaryDirectory() + "publish-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bytes: [UInt8] = Array("segment".utf8)
        #expect(try bytes.withUnsafeBytes { try WriteOnceFile.publish($0, named: "a.m4s", in: folder) } == .written)
        #expect(try bytes.withUnsafeBytes { try WriteOnceFile.publish($0, named: "a.m4s", in: folder) } == .alreadyThere)
        #expect(throws: OutputError.self) { try [UInt8](repeating: 1, count: 3).withUnsafeBytes { try WriteOnceFile.publish($0, named: "a.m4s", in: folder) } }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["a.m4s"])
    }
}

@Suite struct IntervalBoundaryTests {
    @Test func theFirstFrameAtOrAfterEachMultipleStartsASegment() {
        var boundaries = IntervalBoundaries(interval: s(2))
        // 25 fps from 10 s: frames at 10, 10.04, …
        let starts = (0..<200).map { PresentationTime(value: 250 + Int64($0), timescale: 25) }.filter { boundaries.startsSegment(at: $0) }
        #expect(starts == [10, 12, 14, 16].map { s($0) })
    }

    @Test func aGapGivesOneBoundaryAfterIt() {
        var boundaries = IntervalBoundaries(interval: s(2))
        let times = [0, 1000, 1900, 9000, 9500, 11000, 11100].map { ms($0) }
        #expect(times.filter { boundaries.startsSegment(at: $0) } == [0, 9000, 11000].map { ms($0) })
    }
}

@Suite struct OutputTargetTests {
    @Test func playlistsAreHLSAndAnMPDIsAPresentationWithItsManifest() throws {
        #expect(try OutputTarget(path: "out/a.M3U8").kind == .hlsPresentation)
        #expect(try OutputTarget(path: "out/a.m3u8").dashManifest == nil)
        #expect(try OutputTarget(path: "a.mp4").kind == .file)
        let dash = try OutputTarget(path: "out/a.mpd")
        #expect(dash.kind == .hlsPresentation && dash.path == "out/a.m3u8" && dash.dashManifest == "out/a.mpd")
        let row = dash.relocated(to: "rows/7.mpd")
        #expect(row.path == "rows/7.m3u8" && row.dashManifest == "rows/7.mpd")
        let both = try OutputTarget(path: "out/b.m3u8").withDASHManifest()
        #expect(both.path == "out/b.m3u8" && both.dashManifest == "out/b.mpd")
        #expect(both.relocated(to: "rows/8.m3u8").dashManifest == "rows/8.mpd")
        #expect(try OutputTarget(path: "a.mp4").relocated(to: "b.mp4").dashManifest == nil)
        #expect(throws: RequestError.self) { try OutputTarget(path: "a.nosuchformat") }
    }

    @Test func oneQuestionSaysWhatAContainerHolds() throws {
        let mp4 = try OutputTarget(path: "a.mp4").container, webm = try OutputTarget(path: "a.webm").container
        let ts = try OutputTarget(path: "a.ts").container, gif = try OutputTarget(path: "a.gif").container
        #expect(mp4.canHold(.h264) && mp4.canHold(.aac) && !mp4.canHold(.flac), "MP4 refuses FLAC at write time in FFmpeg 5.1")
        #expect(webm.canHold(.vp9) && webm.canHold(.opus) && !webm.canHold(.h264))
        // MPEG-TS does not answer FFmpeg's query: known codecs and its own defaults.
        #expect(ts.canHold(.h264) && ts.canHold(.hevc) && !ts.canHold(.vp9))
        #expect(!gif.canHold(.h264))
        #expect(try OutputTarget(path: "x.m3u8").container == .fragmentedMP4)
        #expect(webm.defaultVideoCodec == .vp9 && mp4.defaultVideoCodec == .h264)
        #expect(ts.storesAnnexB && !mp4.storesAnnexB && mp4.needsGlobalHeader)
    }
}
