import Foundation
@testable import Packaging
import Testing

/// DASH MPDs as values: what the writer writes (well-formed XML, read back to the same values), timelines, the
/// profile each addressing allows, and the reader on an MPD FFmpeg's dash muxer wrote.
@Suite("DASH MPD")
struct MPDTests {
    static let keyID = KeyID(text: TestKeys.keyIDHex)!

    static var sample: MediaPresentationDescription {
        let video = AdaptationSet(
            id: 0, contentType: .video, mimeType: "video/mp4", segmentAlignment: true, startWithSAP: 1,
            contentProtections: [.mp4Protection(scheme: .cbcs, keyID: keyID), .clearKey(keyIDs: [keyID], licenceURL: "https://x/licence?token=a&b=c")],
            segmentTemplate: SegmentTemplate(timescale: 15360, initialization: "$RepresentationID$/init.mp4", media: "$RepresentationID$/$Number%05d$.m4s",
                                             timeline: TimelineEntry.timeline(starts: [0, 92160, 184320], durations: [92160, 92160, 30720])),
            representations: [
                Representation(id: "720", bandwidth: 3_000_000, codecs: "avc1.64001f", width: 1280, height: 720, frameRate: FrameRate(30000, 1001),
                               sampleAspectRatio: "1:1"),
                Representation(id: "360", bandwidth: 800_000, codecs: "avc1.64001e", width: 640, height: 360, frameRate: FrameRate(30000, 1001)),
            ])
        let audio = AdaptationSet(
            id: 1, contentType: .audio, mimeType: "audio/mp4", language: "en", segmentAlignment: true,
            representations: [Representation(id: "audio", bandwidth: 130_000, codecs: "mp4a.40.2", audioSamplingRate: 48000, audioChannels: 2,
                                             segments: .list(SegmentList(timescale: 48000, initialization: "../shared/init-a.mp4",
                                                                         timeline: [TimelineEntry(start: 0, duration: 288_000, repeatCount: 1)],
                                                                         mediaURLs: ["../shared/0a1b.m4s", "ada_example.com-77ff.m4s"])))])
        let text = AdaptationSet(id: 2, contentType: .text, mimeType: "text/vtt", language: "fr", label: "Français", roles: ["subtitle"],
                                 segmentAlignment: false,
                                 representations: [Representation(id: "fr", bandwidth: 256, segments: .single(url: "captions-fr.vtt"))])
        return MediaPresentationDescription(duration: 14, periods: [Period(adaptationSets: [video, audio, text])])
    }

    @Test("the writer's XML is well-formed, has the attributes DASH-IF asks for, and reads back to the same values")
    func writeAndRead() throws {
        let mpd = Self.sample
        let xml = mpd.xml
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" xmlns:cenc=\"urn:mpeg:cenc:2013\""))
        for fragment in ["type=\"static\"", "mediaPresentationDuration=\"PT14S\"", "minBufferTime=\"PT2S\"",
                         "profiles=\"urn:mpeg:dash:profile:isoff-main:2011\"",
                         "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"01234567-89ab-cdef-0123-456789abcdef\"/>",
                         "<ContentProtection schemeIdUri=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\" value=\"ClearKey1.0\">",
                         "<dashif:Laurl Lic_type=\"EME-1.0\">https://x/licence?token=a&amp;b=c</dashif:Laurl>",
                         "<Representation id=\"720\" bandwidth=\"3000000\" codecs=\"avc1.64001f\" width=\"1280\" height=\"720\" frameRate=\"30000/1001\" sar=\"1:1\">",
                         "<S t=\"0\" d=\"92160\" r=\"1\"/>", "<S d=\"30720\"/>", "<SegmentURL media=\"ada_example.com-77ff.m4s\"/>",
                         "<Initialization sourceURL=\"../shared/init-a.mp4\"/>", "<Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"subtitle\"/>",
                         "<BaseURL>captions-fr.vtt</BaseURL>", "<AudioChannelConfiguration schemeIdUri=\"urn:mpeg:dash:23003:3:audio_channel_configuration:2011\" value=\"2\"/>"] {
            #expect(xml.contains(fragment), "missing: \(fragment)")
        }
        // Python's XML parser (expat) agrees it is well-formed.
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.write("m.mpd", Array(xml.utf8))
        let parsed = try scratch.run("python3", ["-c", "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); print(r.tag, len(r.findall('.//{urn:mpeg:dash:schema:mpd:2011}Representation')))", "m.mpd"])
        #expect(parsed.text == "{urn:mpeg:dash:schema:mpd:2011}MPD 4\n", "\(parsed.errorText)")

        var expected = mpd
        expected.profiles = [MediaPresentationDescription.mainProfile]
        expected.minimumBufferTime = 2
        let read = try MediaPresentationDescription(parsing: Array(xml.utf8))
        #expect(read == expected)
        #expect(read.representationSummaries == [
            "video 720, avc1.64001f, 1280x720, 30000/1001 fps, 3000 kb/s, 3 segments, encrypted cbcs KID 01234567-89ab-cdef-0123-456789abcdef",
            "video 360, avc1.64001e, 640x360, 30000/1001 fps, 800 kb/s, 3 segments, encrypted cbcs KID 01234567-89ab-cdef-0123-456789abcdef",
            "audio audio, mp4a.40.2, 48000 Hz, en, 130 kb/s, 2 segments",
            "text fr, fr, 0 kb/s, 1 segments",
        ])
    }

    @Test("the live profile when every Representation is addressed by a template")
    func profiles() {
        var mpd = Self.sample
        mpd.periods[0].adaptationSets.removeLast(2)
        #expect(mpd.effectiveProfiles == [MediaPresentationDescription.liveProfile])
        #expect(mpd.xml.contains("profiles=\"urn:mpeg:dash:profile:isoff-live:2011\""))
    }

    @Test("timelines: equal durations in a row repeat, @t where a segment does not follow on; segments listed back")
    func timelines() {
        let timeline = TimelineEntry.timeline(starts: [100, 200, 300, 450, 550, 650], durations: [100, 100, 100, 100, 100, 20])
        #expect(timeline == [TimelineEntry(start: 100, duration: 100, repeatCount: 2), TimelineEntry(start: 450, duration: 100, repeatCount: 1),
                             TimelineEntry(duration: 20)])
        #expect(TimelineEntry.segments(of: timeline).map(\.start) == [100, 200, 300, 450, 550, 650])
        #expect(MediaPresentationDescription.xsDuration(0.30000000000000004) == "PT0.300S")
        #expect(MediaPresentationDescription.xsDuration(12.3456) == "PT12.346S")
        #expect(MediaPresentationDescription.seconds("PT1H2M3.5S") == 3723.5 && MediaPresentationDescription.seconds("P1DT1S") == 86401)
        #expect(MediaPresentationDescription.seconds("P1Y") == nil)
    }

    @Test("segment timing read from fragments: earliest presentation times and ends make a contiguous timeline")
    func segmentTiming() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let clip = try scratch.fragmentedClip(seconds: 3, audio: true)
        let tracks = try TrackDescription.tracks(ofInitialization: clip.initialization)
        #expect(tracks.map(\.kind) == [.video, .audio] && tracks[0].timescale == 12800)
        let timings = try clip.segments.map { try #require(try SegmentTiming.read(segment: $0, initialization: tracks, trackID: 1)) }
        #expect(timings.map(\.sampleCount) == [25, 25, 25])
        let timeline = SegmentTiming.timeline(timings)
        let segments = TimelineEntry.segments(of: timeline)
        #expect(segments.count == 3)
        // 25 pictures at 25 fps a segment: 12800 ticks each, the first starting at the B-frame delay.
        #expect(segments.map(\.duration) == [12800, 12800, 12800])
        #expect(segments[0].start == UInt64(timings[0].earliestPresentationTime))
    }

    @Test("the reader lists the representations of an MPD FFmpeg's dash muxer wrote (SegmentTemplate with SegmentTimeline)")
    func readsFFmpegMPD() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120:rate=25:duration=3", "-f", "lavfi", "-i", "sine=duration=3",
                            "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-c:a", "aac", "-f", "dash", "-seg_duration", "1", "out.mpd"])
        let mpd = try MediaPresentationDescription(parsing: try scratch.read("out.mpd"), file: "out.mpd")
        let summaries = mpd.representationSummaries
        #expect(summaries.count == 2, "\(summaries)")
        #expect(summaries[0].hasPrefix("video 0, avc1.") && summaries[0].contains("160x120") && summaries[0].contains("3 segments"), "\(summaries)")
        #expect(summaries[1].hasPrefix("audio 1, mp4a.40.2") && summaries[1].contains("Hz"), "\(summaries)")
        #expect(abs(mpd.duration - 3) < 0.1)
        // Every file the templates name is one FFmpeg wrote, and no more.
        let named = mpd.periods[0].adaptationSets.flatMap { set in set.representations.compactMap { mpd.files(of: $0, in: set) } }
        #expect(named.count == 2 && named.allSatisfy { $0.initialization != nil && $0.media.count >= 3 }, "\(named)")
        let written = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.directory).filter { $0.hasSuffix(".m4s") })
        #expect(Set(named.flatMap { $0.media + [$0.initialization!] }) == written, "FFmpeg names its initialization segments .m4s too")
        #expect(throws: MPDReadError.self) { try MediaPresentationDescription(parsing: Array("<MPD/>".utf8)) }
        #expect { try MediaPresentationDescription(parsing: Array("<MPD".utf8), file: "x.mpd") } throws: { "\($0)".hasPrefix("x.mpd: not a readable DASH MPD") }
    }

    @Test("a template's identifiers are filled as ISO/IEC 23009-1 §5.3.9.4.4 says; a malformed one fills nothing")
    func templateIdentifiers() {
        func fill(_ pattern: String, number: Int? = 7, time: UInt64? = 90_000) -> String? {
            SegmentTemplate.expand(pattern, representationID: "v-720", bandwidth: 2_500_000, number: number, time: time)
        }
        #expect(fill("$RepresentationID$/$Number%05d$.m4s") == "v-720/00007.m4s")
        #expect(fill("t$Time$-b$Bandwidth$-$$-$Number$.m4s") == "t90000-b2500000-$-7.m4s")
        #expect(fill("$Number%01d$$Time%08d$") == "700090000")
        #expect(fill("$Number%05d$", number: 1_234_567) == "1234567", "a width is a minimum")
        #expect(fill("init.mp4", number: nil, time: nil) == "init.mp4")
        for malformed in ["$Number", "$Nmber$", "$RepresentationID%05d$", "$Number%5d$", "$Number%05x$"] {
            #expect(fill(malformed) == nil, "\(malformed)")
        }
        #expect(fill("$Time$", time: nil) == nil && fill("$Number$", number: nil) == nil)
        // @duration without a timeline: numbers from startNumber, times a segment's duration apart.
        let set = AdaptationSet(contentType: .video, mimeType: "video/mp4", representations: [])
        let mpd = MediaPresentationDescription(duration: 5, periods: [Period(adaptationSets: [set])])
        let representation = Representation(id: "a", bandwidth: 1, segments: .template(SegmentTemplate(
            timescale: 1000, initialization: "$RepresentationID$-init.mp4", media: "$RepresentationID$-$Number$-$Time$.m4s", startNumber: 3, duration: 2000)))
        #expect(mpd.files(of: representation, in: set) == RepresentationFiles(initialization: "a-init.mp4",
                                                                                media: ["a-3-0.m4s", "a-4-2000.m4s", "a-5-4000.m4s"]))
    }
}
