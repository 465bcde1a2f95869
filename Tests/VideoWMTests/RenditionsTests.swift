import Foundation
import Testing
import Animation
import Overlay
@testable import VideoWM

private func ms(_ milliseconds: Int64) -> PresentationTime { PresentationTime(milliseconds: milliseconds) }
private func s(_ seconds: Int64) -> PresentationTime { PresentationTime(value: seconds, timescale: 1) }

@Suite struct LadderRequestTests {
    @Test func readsAutoAndExplicitListsWithOptionalRates() throws {
        #expect(try LadderRequest(parsing: "auto") == .automatic)
        #expect(try LadderRequest(parsing: " AUTO ") == .automatic)
        #expect(try LadderRequest(parsing: "input") == .input)
        #expect(LadderRequest.input.description == "input")
        #expect(try LadderRequest(parsing: "1080:5M,720:2800k,360") == .explicit([
            LadderRung(lines: 1080, bitRate: 5_000_000), LadderRung(lines: 720, bitRate: 2_800_000), LadderRung(lines: 360),
        ]))
        #expect(try LadderRequest(parsing: "480:1.5M, 240:400000") == .explicit([
            LadderRung(lines: 480, bitRate: 1_500_000), LadderRung(lines: 240, bitRate: 400_000),
        ]))
        #expect(try LadderRequest(parsing: "1080:5M,720:2800k,360").description == "1080:5M,720:2800k,360")
    }

    @Test func refusesWhatIsNotALadderSayingWhy() {
        func problem(_ text: String) -> String? {
            do { _ = try LadderRequest(parsing: text); return nil } catch { return error.problem }
        }
        #expect(problem("")?.contains("auto, input or heights") == true)
        #expect(problem("720,,360")?.contains("auto, input or heights") == true)
        #expect(problem("720p")?.contains("'720p' is not HEIGHT") == true)
        #expect(problem("8")?.contains("16…4320") == true)
        #expect(problem("720:fast")?.contains("the rate must be like 2800k") == true)
        #expect(problem("720:1k")?.contains("16k…200M") == true)
        #expect(problem("720:2M:x")?.contains("is not HEIGHT") == true)
        #expect(problem("720,360,720")?.contains("lists 720 twice") == true)
        #expect(problem("100,200,300,400,500,600,700,800,900")?.contains("at most 8") == true)
    }
}

@Suite struct RenditionLadderTests {
    func sizes(_ ladder: RenditionLadder) -> [String] {
        ladder.renditions.map { "\($0.width)x\($0.height)@\($0.bitRate / 1000)k\($0.isSourcePicture ? "*" : "")" }
    }

    @Test func autoIsTheSourceThenTheStandardRungsBelowIt() {
        let hd = RenditionLadder(request: .automatic, source: LadderSource(storedWidth: 1920, storedHeight: 1080), codec: .h264)
        #expect(sizes(hd) == ["1920x1080@6000k*", "1280x720@3000k", "960x540@2000k", "640x360@365k"])
        #expect(hd.notices.isEmpty)
        let sd = RenditionLadder(request: .automatic, source: LadderSource(storedWidth: 1280, storedHeight: 720), codec: .h264)
        #expect(sizes(sd) == ["1280x720@3000k*", "960x540@2000k", "640x360@365k"])
        // 576 lines: 540 is within an eighth of it and left out; 360 stays.
        let pal = RenditionLadder(request: .automatic, source: LadderSource(storedWidth: 1024, storedHeight: 576), codec: .h264)
        #expect(pal.renditions.map(\.lines) == [576, 360])
        #expect(pal.renditions[0].isSourcePicture)
        // Above 1080 lines the top is 1080, encoded: no rendition is the source's picture.
        let uhd = RenditionLadder(request: .automatic, source: LadderSource(storedWidth: 3840, storedHeight: 2160), codec: .hevcClass)
        #expect(sizes(uhd) == ["1920x1080@4500k", "1280x720@2400k", "960x540@600k", "640x360@145k"])
        // A small source is its own ladder.
        let tiny = RenditionLadder(request: .automatic, source: LadderSource(storedWidth: 320, storedHeight: 180), codec: .h264)
        #expect(tiny.renditions.map(\.lines) == [180])
    }

    @Test func oddRungsAreSizedEvenAndNamedByTheLinesTheyHave() throws {
        // An odd source (1000×562, 29.97 fps camera crops) keeps its own size; odd rungs below it become even.
        let ladder = RenditionLadder(request: try LadderRequest(parsing: "562,301,181"), source: LadderSource(storedWidth: 1000, storedHeight: 562),
                                     codec: .h264)
        #expect(ladder.renditions.map(\.name) == ["562p", "300p", "180p"])
        #expect(ladder.renditions.map { "\($0.width)x\($0.height)" } == ["1000x562", "536x300", "322x180"])
        #expect(ladder.renditions[0].isSourcePicture && !ladder.renditions[1].isSourcePicture)
    }

    @Test func explicitRungsTallerThanTheInputAreCappedWithANotice() throws {
        let ladder = RenditionLadder(request: try LadderRequest(parsing: "1080:5M,480,360:500k"),
                                     source: LadderSource(storedWidth: 1280, storedHeight: 720), codec: .h264)
        #expect(sizes(ladder) == ["1280x720@3000k*", "854x480@1262k", "640x360@500k"])
        #expect(ladder.renditions[2].bitRateGiven && !ladder.renditions[1].bitRateGiven)
        #expect(ladder.notices == ["--ladder: 1080 is taller than the input (720 lines), which is never enlarged; the top rendition is the input's 720 lines"])
        // A rate given for the input's own size makes it an encoded rendition, not the source's packets.
        let given = RenditionLadder(request: try LadderRequest(parsing: "720:1M"), source: LadderSource(storedWidth: 1280, storedHeight: 720), codec: .h264)
        #expect(sizes(given) == ["1280x720@1000k"])
    }

    @Test func otherShapesFollowTheirPixelCount() throws {
        // 4:3: 480×360 has fewer pixels than 640×360 and gets a rate between 234 and 360 lines'.
        let square = RenditionLadder(request: try LadderRequest(parsing: "360"), source: LadderSource(storedWidth: 640, storedHeight: 480), codec: .h264)
        #expect(sizes(square) == ["480x360@270k"])
        // A phone's portrait video: the rung is its width; stored in the coded orientation.
        let portrait = RenditionLadder(request: try LadderRequest(parsing: "1080,720"),
                                       source: LadderSource(storedWidth: 1920, storedHeight: 1080, rotation: DisplayRotation(clockwiseQuarterTurns: 1)),
                                       codec: .h264)
        #expect(sizes(portrait) == ["1080x1920@6000k*", "720x1280@3000k"])
        #expect(portrait.renditions[1].storedWidth == 1280 && portrait.renditions[1].storedHeight == 720)
        // Anamorphic PAL (16:15 pixels) is shown 768×576; its own size still needs resampling.
        let anamorphic = RenditionLadder(request: .automatic,
                                         source: LadderSource(storedWidth: 720, storedHeight: 576, pixelAspect: PixelAspect(numerator: 16, denominator: 15)),
                                         codec: .h264)
        #expect(anamorphic.renditions.map { "\($0.width)x\($0.height)" } == ["768x576", "480x360"])
        #expect(!anamorphic.renditions[0].isSourcePicture)
    }

    @Test func standardRatesAreApplesAtItsSizesAndInterpolatedBetween() {
        for (w, h, k) in StandardBitRates.h264 { #expect(StandardBitRates.rate(width: w, height: h, codec: .h264) == k * 1000) }
        for (w, h, k) in StandardBitRates.hevc { #expect(StandardBitRates.rate(width: w, height: h, codec: .hevcClass) == k * 1000) }
        // 1440p H.264 at 1080p's bits per pixel; below 234 lines at 234's, at least 32 kb/s.
        #expect(StandardBitRates.rate(width: 2560, height: 1440, codec: .h264) == 10_667_000)
        #expect(StandardBitRates.rate(width: 320, height: 180, codec: .h264) == 86_000)
        #expect(StandardBitRates.rate(width: 32, height: 18, codec: .h264) == 32_000)
    }
}

@Suite struct SegmentBitRateTests {
    @Test func peakIsTheBusiestWindowOfHalfToOneAndAHalfTargetsOrAnySingleSegment() {
        // Target 6: windows of 3…9 s. Segments of 6 s at 1, 3, 1 Mb/s, then a short last one.
        let segments = [(750_000, s(6)), (2_250_000, s(6)), (750_000, s(6)), (100_000, ms(500))]
            .map { SegmentBitRates.Sample(bytes: $0.0, duration: $0.1) }
        let rates = SegmentBitRates(segments: segments, targetDurationSeconds: 6)
        // The 0.5-s segment alone: 1.6 Mb/s, below the 3 Mb/s segment; the RFC's windows never
        // take it alone, this measure does (it must not exceed BANDWIDTH either).
        #expect(rates.peak == 3_000_000)
        #expect(rates.average == 1_664_865)  // 3 850 000 bytes over 18.5 s, rounded up
        let spike = SegmentBitRates(segments: [.init(bytes: 600_000, duration: s(6)), .init(bytes: 1_000_000, duration: ms(1000))], targetDurationSeconds: 6)
        #expect(spike.peak == 8_000_000)
        #expect(SegmentBitRates(segments: [], targetDurationSeconds: 6) == .zero)
        #expect((SegmentBitRates(peak: 5, average: 3) + SegmentBitRates(peak: 2, average: 1)) == SegmentBitRates(peak: 7, average: 4))
    }
}

@Suite struct MultivariantPlaylistTests {
    let playlist = MultivariantPlaylist(renditions: [
        .init(kind: .audio, groupID: "audio", language: "en", name: "English", isDefault: true, channels: 2, uri: "../shared-segments/audio-en-0011.m3u8"),
        .init(kind: .audio, groupID: "audio", language: "de", name: "Deutsch", isDefault: false, channels: 2, uri: "../shared-segments/audio-de-0022.m3u8"),
        .init(kind: .subtitles, groupID: "subs", language: "en", name: "English", isDefault: false, uri: "../shared-segments/subtitles-en-0033.m3u8"),
    ], variants: [
        .init(bandwidth: 4_100_000, averageBandwidth: 3_000_000, codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 30000.0 / 1001,
              audioGroup: "audio", subtitlesGroup: "subs", uri: "alice-720p.m3u8"),
        .init(bandwidth: 2_600_000, averageBandwidth: 1_900_000, codecs: ["avc1.64001e", "mp4a.40.2"], width: 854, height: 480, frameRate: 30000.0 / 1001,
              audioGroup: "audio", subtitlesGroup: "subs", uri: "alice-480p.m3u8"),
        .init(bandwidth: 900_000, averageBandwidth: 600_000, codecs: ["avc1.64001e", "mp4a.40.2"], width: 640, height: 360, frameRate: 30000.0 / 1001,
              audioGroup: "audio", subtitlesGroup: "subs", uri: "alice-360p.m3u8"),
    ], independentSegments: true)

    @Test func writesGroupsThenVariantsTheLowestAtLeast360LinesFirst() {
        #expect(playlist.text == """
            #EXTM3U
            #EXT-X-VERSION:4
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="en",NAME="English",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="../shared-segments/audio-en-0011.m3u8"
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="de",NAME="Deutsch",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="../shared-segments/audio-de-0022.m3u8"
            #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=NO,AUTOSELECT=YES,URI="../shared-segments/subtitles-en-0033.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=600000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=29.970,AUDIO="audio",SUBTITLES="subs",CLOSED-CAPTIONS=NONE
            alice-360p.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=4100000,AVERAGE-BANDWIDTH=3000000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=29.970,AUDIO="audio",SUBTITLES="subs",CLOSED-CAPTIONS=NONE
            alice-720p.m3u8
            #EXT-X-STREAM-INF:BANDWIDTH=2600000,AVERAGE-BANDWIDTH=1900000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=854x480,FRAME-RATE=29.970,AUDIO="audio",SUBTITLES="subs",CLOSED-CAPTIONS=NONE
            alice-480p.m3u8

            """)
    }

    @Test func readsBackWhatItWrites() throws {
        let read = try MultivariantPlaylist(parsing: playlist.text)
        #expect(read.renditions == playlist.renditions)
        #expect(read.variants.map(\.uri) == ["alice-360p.m3u8", "alice-720p.m3u8", "alice-480p.m3u8"])
        #expect(read.variants[1].codecs == ["avc1.64001f", "mp4a.40.2"])
        #expect(read.variants[1].width == 1280 && read.variants[1].height == 720)
        #expect(read.variants[1].frameRate == 29.97)
        #expect(read.independentSegments)
        #expect(MultivariantPlaylist.isMultivariant(playlist.text))
        #expect(throws: MultivariantPlaylist.ParseProblem.self) { try MultivariantPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.m4s\n") }
    }

    @Test("the start variant: the lowest at least 360 lines tall, else the tallest; without heights the one nearest 2 Mb/s")
    func startVariant() {
        #expect(MultivariantPlaylist.startIndex(heights: [720, 480, 360, 240]) == 2)
        #expect(MultivariantPlaylist.startIndex(heights: [1080, 720]) == 1)
        #expect(MultivariantPlaylist.startIndex(heights: [240, 120]) == 0)
        #expect(MultivariantPlaylist.startIndex(heights: [120, 240, 240]) == 1)
        #expect(MultivariantPlaylist.startIndex(heights: [480, nil, 480]) == 0)
        #expect(MultivariantPlaylist.startIndex(heights: [nil, nil]) == nil)
        let unsized = MultivariantPlaylist(renditions: [], variants: [5_000_000, 2_100_000, 400_000].map {
            .init(bandwidth: $0, averageBandwidth: $0, codecs: [], width: nil, height: nil, frameRate: nil, audioGroup: nil, subtitlesGroup: nil, uri: "\($0).m3u8")
        }, independentSegments: true)
        #expect(unsized.orderedVariants.map(\.bandwidth) == [2_100_000, 5_000_000, 400_000])
    }

    @Test func withoutGroupsNoVersionIsNeeded() {
        let single = MultivariantPlaylist(renditions: [], variants: [
            .init(bandwidth: 1, averageBandwidth: 1, codecs: ["avc1.42c01e"], width: 2, height: 2, frameRate: 25, audioGroup: nil, subtitlesGroup: nil, uri: "v.m3u8"),
        ], independentSegments: false)
        #expect(single.text == "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,AVERAGE-BANDWIDTH=1,CODECS=\"avc1.42c01e\",RESOLUTION=2x2,FRAME-RATE=25.000,CLOSED-CAPTIONS=NONE\nv.m3u8\n")
    }
}

@Suite struct CodecStringTests {
    @Test func avcFromTheSPSTheHighestLevelOfSeveral() {
        // avcC: High 3.0 record header, but SPSs at level 3.1 and 4.0 (a spliced record).
        let sps1: [UInt8] = [0x67, 0x64, 0x00, 0x1F, 0xAC], sps2: [UInt8] = [0x67, 0x64, 0x00, 0x28, 0xAC]
        let record: [UInt8] = [1, 0x64, 0, 0x1E, 0xFF, 0xE2, 0, 5] + sps1 + [0, 5] + sps2 + [1, 0, 2, 0x68, 0xEE]
        #expect(CodecStrings.avc("avc1", record: record) == "avc1.640028")
        #expect(CodecStrings.avc("avc3", record: [1, 0x42, 0xC0, 0x1E, 0xFF, 0xE1, 0, 4, 0x67, 0x42, 0xC0, 0x1E, 0]) == "avc3.42c01e")
        #expect(CodecStrings.avc("avc1", record: [1, 2]) == nil)
    }

    @Test func hevcFromTheRecordsGeneralFields() {
        // Main profile, Main tier, level 3.1 (93), compatibility flags 0x60000000, constraints 0x90 then zeros.
        var record = [UInt8](repeating: 0, count: 23)
        record[0] = 1; record[1] = 0x01; record[2] = 0x60; record[6] = 0x90; record[12] = 93
        #expect(CodecStrings.hevc("hvc1", record: record) == "hvc1.1.6.L93.90")
        // Main 10, High tier, level 5.1, constraints B0.
        record[1] = 0x22; record[2] = 0x20; record[6] = 0xB0; record[12] = 153
        #expect(CodecStrings.hevc("hev1", record: record) == "hev1.2.4.H153.B0")
    }

    @Test func audioFromTheAudioSpecificConfig() {
        // esds: version/flags, ES_Descriptor(3) { ES_ID, flags, DecoderConfig(4) { 0x40, …, DecSpecificInfo(5) { AAC-LC 48 kHz stereo } } }
        let specific: [UInt8] = [0x05, 0x02, 0x11, 0x90]
        let config: [UInt8] = [0x04, UInt8(13 + specific.count), 0x40, 0x15, 0, 0, 0, 0, 1, 0xF4, 0, 0, 1, 0xF4, 0] + specific
        let es: [UInt8] = [0x03, UInt8(3 + config.count), 0, 1, 0] + config
        #expect(CodecStrings.mpeg4Audio(esds: [0, 0, 0, 0] + es) == "mp4a.40.2")
        // HE-AAC (object type 5) and an extended object type (31 + escape: 32 + 10 = 42).
        var he = es; he[es.count - 2] = 0x2B
        #expect(CodecStrings.mpeg4Audio(esds: [0, 0, 0, 0] + he) == "mp4a.40.5")
        var mp3 = es; mp3[7] = 0x6B
        #expect(CodecStrings.mpeg4Audio(esds: [0, 0, 0, 0] + mp3) == "mp4a.6B")
    }

    @Test func vp9AndAV1FromTheirRecords() {
        #expect(CodecStrings.vp9([1, 0, 0, 0, 0, 31, 0x80, 1, 1, 1, 0, 0]) == "vp09.00.31.08")
        #expect(CodecStrings.av1([0x81, 0x08, 0x0C, 0]) == "av01.0.08M.08")
        #expect(CodecStrings.av1([0x81, 0x0D, 0xCC, 0]) == "av01.0.13H.10")
    }

    /// An fMP4 initialization segment written by the ffmpeg tool: our CODECS strings agree
    /// with those FFmpeg's own HLS muxer writes into its master playlist (an independent writer).
    @Test func initializationSegmentsTracksAgreeWithFFmpegsHLSMuxer() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("CodecStringTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try ImageLoadingTests.runFFmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-f", "lavfi", "-i", "sine=d=1:sample_rate=48000",
                                         "-c:v", "libx264", "-profile:v", "main", "-level", "2.1", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ac", "2",
                                         "-metadata:s:a", "language=ger", "-aspect", "16:9",
                                         "-f", "hls", "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4", "-master_pl_name", "master.m3u8",
                                         folder.appendingPathComponent("media.m3u8").path])
        let initBytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent("init.mp4")))
        let tracks = try #require(InitializationTrack.tracks(ofInitializationSegment: initBytes))
        let master = try String(contentsOf: folder.appendingPathComponent("master.m3u8"), encoding: .utf8)
        let ffmpegCodecs = try #require(master.split(separator: "\n").first { $0.hasPrefix("#EXT-X-STREAM-INF") }.flatMap { line in
            line.range(of: "CODECS=\"").map { line[$0.upperBound...].prefix { $0 != "\"" } }
        })
        #expect(tracks.map(\.kind) == [.video, .audio])
        #expect(tracks.compactMap(\.codec).joined(separator: ",").lowercased() == ffmpegCodecs.lowercased())
        #expect(tracks[0].codec == "avc1.4d4015")  // Main, constraint_set1 (as x264 sets it), level 2.1
        #expect(tracks[0].storedWidth == 320 && tracks[0].storedHeight == 240)
        #expect(tracks[0].displaySize?.width == 427 && tracks[0].displaySize?.height == 240)
        #expect(tracks[1].language == "ger" && tracks[1].channels == 2)
    }
}

@Suite struct CaptionReaderTests {
    @Test func subRipCuesWithMarkupMadeWebVTTs() throws {
        let text = "\u{FEFF}1\r\n00:00:01,000 --> 00:00:04,500\r\n<i>Hello</i> & <font color=\"red\">welcome</font>\r\n{\\an8}second line\r\n\r\n2\r\n00:01:02.250 --> 01:00:00,000 X1:10 X2:20\r\n3 < 4\r\n\r\n\r\n"
        let cues = try SubRipReader.cues(in: String(text.dropFirst()), file: "a.srt")
        #expect(cues == [
            CaptionCue(start: ms(1000), end: ms(4500), text: "<i>Hello</i> &amp; welcome\nsecond line"),
            CaptionCue(start: ms(62250), end: ms(3_600_000), text: "3 &lt; 4"),
        ])
        // Without numbers, and a block of no text (dropped).
        let bare = try SubRipReader.cues(in: "00:00:00,000 --> 00:00:01,000\nA\n\n00:00:02,000 --> 00:00:03,000\n\n", file: "b.srt")
        #expect(bare == [CaptionCue(start: .zero, end: ms(1000), text: "A")])
    }

    @Test func badSubRipCuesNameTheFileAndLine() {
        func message(_ text: String) -> String? {
            do { _ = try SubRipReader.cues(in: text, file: "talk.srt"); return nil } catch { return "\(error)" }
        }
        #expect(message("1\n00:00:01,000 --> 00:00:04,000\nok\n\n2\n00:00:05,000 -> 00:00:06,000\nbad\n") == "talk.srt: line 6: expected the timing line of cue 2, such as 00:00:01,000 --> 00:00:04,000, got '00:00:05,000 -> 00:00:06,000'")
        #expect(message("1\n00:00:01,000 --> 00:00:0x,000\nbad\n") == "talk.srt: line 2: '00:00:0x,000' is not a time such as 00:01:02,500")
        #expect(message("1\n00:00:05,000 --> 00:00:04,000\nbackwards\n") == "talk.srt: line 2: the cue ends (00:00:04,000) before it starts (00:00:05,000)")
        #expect(message("1\n00:61:00,000 --> 00:62:00,000\nx\n")?.contains("line 2") == true)
        #expect(message("hello\nworld\n")?.hasPrefix("talk.srt: line 1:") == true)
    }

    @Test func webVTTCuesKeepTheirSettingsAndSkipNotes() throws {
        let text = """
            WEBVTT - a lecture
            Kind: captions

            NOTE a comment
            that spans lines

            STYLE
            ::cue { color: yellow }

            intro
            00:01.000 --> 00:04.000 align:start line:10%
            <v Ada>Hello</v>

            00:00:05.000 --> 00:00:06.500
            two
            lines

            """
        let cues = try WebVTTReader.cues(in: text, file: "a.vtt")
        #expect(cues == [
            CaptionCue(start: ms(1000), end: ms(4000), text: "<v Ada>Hello</v>", settings: "align:start line:10%"),
            CaptionCue(start: ms(5000), end: ms(6500), text: "two\nlines"),
        ])
    }

    @Test func badWebVTTNamesTheLine() {
        func message(_ text: String) -> String? {
            do { _ = try WebVTTReader.cues(in: text, file: "a.vtt"); return nil } catch { return "\(error)" }
        }
        #expect(message("1\n00:01.000 --> 00:02.000\nx\n") == "a.vtt: line 1: a WebVTT file starts with a WEBVTT line")
        #expect(message("WEBVTT\n\n00:01,000 --> 00:02,000\nx\n") == "a.vtt: line 3: '00:01,000' is not a time such as 00:01:02.500")
        #expect(message("WEBVTT\n\n00:01.000 --> 00:02.000\nx\n00:03.000 --> 00:04.000\ny\n") == "a.vtt: line 5: a cue's text may not contain '-->' (a missing blank line between cues?)")
        #expect(message("WEBVTT\n\nid\nno timing\n")?.hasPrefix("a.vtt: line 3: expected a timing line") == true)
    }

    @Test func filesAreUTF8OrWindows1252WithANotice() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("CaptionReaderTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let latin = folder.appendingPathComponent("talk.fr.srt").path
        try Data("1\n00:00:01,000 --> 00:00:02,000\nCaf".utf8 + [0xE9, 0x20, 0x93, 0x6F, 0x6B, 0x94, 0x0A]).write(to: URL(fileURLWithPath: latin))
        let warnings = WarningLog()
        let track = try SidecarCaptions(argument: latin).load(warn: warnings.handler)
        #expect(track.cues.map(\.text) == ["Café “ok”"])
        #expect(track.language == "fr" && track.name == "Français" && track.origin == "talk.fr.srt")
        #expect(warnings.messages == ["\(latin): not UTF-8; read as Windows-1252"])
        #expect(throws: InputError.self) { try SidecarCaptions(argument: folder.appendingPathComponent("missing.srt").path).load(warn: { _ in }) }
    }
}

@Suite struct SidecarArgumentTests {
    @Test func fileThenLanguageThenNameWhichMayHoldColons() throws {
        let plain = try SidecarCaptions(argument: "subs/talk.srt")
        #expect(plain.file == "subs/talk.srt" && plain.format == .subRip && plain.language == nil && plain.name == nil)
        let full = try SidecarCaptions(argument: "c:/x.vtt/talk.VTT:pt-BR:Português: legendas")
        #expect(full.file == "c:/x.vtt/talk.VTT" && full.format == .webVTT && full.language == "pt-BR" && full.name == "Português: legendas")
        #expect(try SidecarCaptions(argument: "talk.de.srt").languageFromFileName == "de")
        #expect(try SidecarCaptions(argument: "talk.v2.srt").languageFromFileName == nil)
    }

    @Test func refusesOtherFilesBadLanguagesAndNames() {
        #expect(throws: SidecarCaptions.SyntaxError.self) { try SidecarCaptions(argument: "talk.txt") }
        #expect(throws: SidecarCaptions.SyntaxError.self) { try SidecarCaptions(argument: "talk.srt:english!") }
        #expect(throws: SidecarCaptions.SyntaxError.self) { try SidecarCaptions(argument: "talk.srt:en:say \"hi\"") }
        #expect(throws: SidecarCaptions.SyntaxError.self) { try SidecarCaptions(argument: "talk.srt:en:") }
    }

    @Test func languageTagsPreferTwoLetterCodes() {
        #expect(LanguageTag.preferred("eng") == "en" && LanguageTag.preferred("ger") == "de" && LanguageTag.preferred("deu") == "de")
        #expect(LanguageTag.preferred("gsw") == "gsw" && LanguageTag.preferred("??") == "und")
        #expect(LanguageTag.name(of: "en-GB") == "English" && LanguageTag.name(of: "tlh") == nil)
    }
}

@Suite struct WebVTTSegmentTests {
    let track = CaptionTrack(language: "en", name: "English", cues: [
        CaptionCue(start: ms(500), end: ms(2000), text: "first"),
        CaptionCue(start: ms(5000), end: ms(7000), text: "spans the cut", settings: "align:start"),
        CaptionCue(start: ms(13000), end: ms(20000), text: "runs past the end"),
    ], origin: "t.srt")

    @Test func cutsAtTheVideosTimesMappedToTheFirstPicture() {
        // The video starts at 10 s on its timeline (an MPEG-TS source): cuts at 10, 16, 22 s, end 24 s.
        let segments = WebVTTSegments.segments(of: track, boundaries: [s(10), s(16), s(22), s(24)], origin: s(10))
        #expect(segments.map(\.duration) == [s(6), s(6), s(2)])
        let header = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n"
        #expect(segments[0].text == header + "\n00:00:00.500 --> 00:00:02.000\nfirst\n\n00:00:05.000 --> 00:00:07.000 align:start\nspans the cut\n")
        #expect(segments[1].text == header + "\n00:00:05.000 --> 00:00:07.000 align:start\nspans the cut\n")
        #expect(segments[2].text == header + "\n00:00:13.000 --> 00:00:20.000\nruns past the end\n")
    }

    @Test func emptySegmentsAreJustTheHeaderAndTheClockWraps() {
        let segments = WebVTTSegments.segments(of: CaptionTrack(language: "en", name: "E", cues: [], origin: "x"), boundaries: [.zero, s(6), s(8)], origin: .zero)
        #expect(segments.map(\.text) == Array(repeating: "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n", count: 2))
        #expect(WebVTTSegments.mpegTimestamp(of: PresentationTime(value: 1001, timescale: 30000)) == 3003)
        #expect(WebVTTSegments.mpegTimestamp(of: s(100_000)) == 9_000_000_000 - (1 << 33))
        #expect(CaptionText.webVTTTimestamp(PresentationTime(value: 3_723_4565, timescale: 10000)) == "01:02:03.457")
    }

    @Test func subtitlePlaylistSharesTheVideosTargetDuration() {
        let playlist = SubtitlePlaylist(segments: [.init(uri: "a.vtt", duration: ms(6006)), .init(uri: "b.vtt", duration: ms(1000))], targetDurationSeconds: 7)
        #expect(playlist.text == "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:7\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:6.006000,\na.vtt\n#EXTINF:1.000000,\nb.vtt\n#EXT-X-ENDLIST\n")
    }
}

/// The input's own text subtitle streams, through FFmpeg's decoders (made by the ffmpeg tool
/// from SubRip files, in Matroska with a video that starts late).
@Suite struct InputCaptionTests {
    @Test func textStreamsBecomeTracksTimedFromTheFirstPicture() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("InputCaptionTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let english = folder.appendingPathComponent("en.srt").path, german = folder.appendingPathComponent("de.srt").path
        try "1\n00:00:01,000 --> 00:00:02,500\n<i>Hello</i>\n\n2\n00:00:03,000 --> 00:00:04,000\nBye\n".write(toFile: english, atomically: true, encoding: .utf8)
        try "1\n00:00:01,500 --> 00:00:02,000\nHallo\n".write(toFile: german, atomically: true, encoding: .utf8)
        let video = folder.appendingPathComponent("in.mkv").path
        // The video and the subtitles start 10 s into the file's timeline.
        try ImageLoadingTests.runFFmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x36:r=10:d=5", "-i", english, "-i", german,
                                         "-map", "0", "-map", "1", "-map", "2", "-c:v", "libx264", "-c:s", "srt", "-output_ts_offset", "10",
                                         "-metadata:s:s:0", "language=eng", "-metadata:s:s:1", "language=ger", "-metadata:s:s:1", "title=Deutsch (Untertitel)",
                                         video])
        let captions = try PresentationCaptions.load(input: video, sidecars: [try SidecarCaptions(argument: english + ":en")], warn: { _ in })
        #expect(captions.tracks.map(\.language) == ["en", "de", "en"])
        #expect(captions.tracks.map(\.name) == ["English", "Deutsch (Untertitel)", "English (2)"])
        #expect(captions.tracks[0].cues == [CaptionCue(start: ms(1000), end: ms(2500), text: "<i>Hello</i>"), CaptionCue(start: ms(3000), end: ms(4000), text: "Bye")])
        #expect(captions.tracks[1].cues == [CaptionCue(start: ms(1500), end: ms(2000), text: "Hallo")])
        #expect(captions.tracks[2].cues.map(\.start) == [ms(1000), ms(3000)])
        #expect(captions.notices.isEmpty)
    }
}
