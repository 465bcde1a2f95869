import Foundation
import Testing
import Animation
import VideoWM

/// The multivariant playlist and the WebVTT captions around renditions made by the ffmpeg tool
/// (two sizes of one video, keyframes every 2 s): our playlist passes the strict parser and
/// `scripts/hls-check`, ffmpeg decodes every variant through it, and video.js plays it across a
/// forced switch with the caption cues at the SRT's times. The ladder writer's own end-to-end
/// tests (issue 25's second half) reuse the same checks on our segments, and there the video
/// starting late: FFmpeg's HLS muxer writes a late start as an empty edit (`elst`) before a
/// `tfdt` of 0, which players do not read (video.js, hls.js: the media timeline is the `tfdt`),
/// so it cannot show a late start's X-TIMESTAMP-MAP.
@Suite("rendition playlists", .serialized)
struct RenditionPlaylistTests {
    static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts")
    static let srt = "1\n00:00:00,500 --> 00:00:01,500\nHello\n\n2\n00:00:01,800 --> 00:00:02,600\nAcross the cut\n\n3\n00:00:04,250 --> 00:00:05,000\nLast words\n"

    /// Makes the fixture in `h`'s folder and returns the multivariant playlist's path.
    static func presentation(_ h: Harness, bandwidthScale: Double = 1) throws -> String {
        var variants: [MultivariantPlaylist.Variant] = []
        var boundaries: [PresentationTime] = []
        var origin = PresentationTime.zero
        var target = 0
        for (width, height) in [(320, 180), (160, 90)] {
            let name = "v\(height)"
            try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=6", "-vf", "scale=\(width):\(height)", "-c:v", "libx264", "-preset", "ultrafast",
                          "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
                          "-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "2", "-hls_playlist_type", "vod",
                          "-hls_fmp4_init_filename", "\(name)-init.mp4", "-hls_segment_filename", h.path("\(name)-%d.m4s"), h.path("\(name).m3u8")])
            let lines = try String(contentsOfFile: h.path("\(name).m3u8"), encoding: .utf8).split(separator: "\n").map(String.init)
            target = Int(lines.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }!.dropFirst("#EXT-X-TARGETDURATION:".count))!
            var samples: [SegmentBitRates.Sample] = []
            for (index, line) in lines.enumerated() where line.hasPrefix("#EXTINF:") {
                let seconds = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," })!
                let size = try FileManager.default.attributesOfItem(atPath: h.path(lines[index + 1]))[.size] as! Int
                samples.append(.init(bytes: size, duration: PresentationTime(seconds: seconds)))
            }
            let rates = SegmentBitRates(segments: samples, targetDurationSeconds: target)
            let initBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: h.path("\(name)-init.mp4"))))
            let video = try #require(InitializationTrack.tracks(ofInitializationSegment: initBytes)?.first { $0.kind == .video })
            let size = try #require(video.displaySize)
            variants.append(.init(bandwidth: Int(Double(rates.peak) * bandwidthScale), averageBandwidth: rates.average,
                                  codecs: [try #require(video.codec)], width: size.width, height: size.height, frameRate: 30,
                                  audioGroup: nil, subtitlesGroup: MultivariantPlaylist.subtitlesGroupID, uri: "\(name).m3u8"))
            // Cuts on the media timeline: the first picture's time (0), then every EXTINF on.
            origin = .zero
            boundaries = samples.reduce(into: [origin]) { $0.append($0.last! + $1.duration) }
        }
        // Captions: a sidecar SRT, segmented at the video's cuts.
        let srt = try h.write("talk.en.srt", Self.srt)
        let track = try SidecarCaptions(argument: srt).load(warn: { _ in })
        var subtitleSegments: [SubtitlePlaylist.Segment] = []
        var subtitleSamples: [SegmentBitRates.Sample] = []
        for (index, segment) in WebVTTSegments.segments(of: track, boundaries: boundaries, origin: origin).enumerated() {
            _ = try h.write("en-\(index).vtt", segment.text)
            subtitleSegments.append(.init(uri: "en-\(index).vtt", duration: segment.duration))
            subtitleSamples.append(.init(bytes: segment.bytes.count, duration: segment.duration))
        }
        _ = try h.write("en.m3u8", SubtitlePlaylist(segments: subtitleSegments, targetDurationSeconds: target).text)
        // A player may fetch the captions beside the video: both count (RFC 8216 §4.3.4.2).
        let captionRates = SegmentBitRates(segments: subtitleSamples, targetDurationSeconds: target)
        variants = variants.map { variant in
            var with = variant
            with.bandwidth += Int(Double(captionRates.peak) * bandwidthScale)
            with.averageBandwidth += captionRates.average
            return with
        }
        let playlist = MultivariantPlaylist(renditions: [
            .init(kind: .subtitles, groupID: MultivariantPlaylist.subtitlesGroupID, language: track.language, name: track.name, isDefault: false, uri: "en.m3u8"),
        ], variants: variants, independentSegments: true)
        return try h.write("master.m3u8", playlist.text)
    }

    @Test("our multivariant playlist passes the strict checks; a BANDWIDTH below the measured peak does not")
    func strictChecks() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let master = try Self.presentation(h)
        let checked = try h.run(Self.scripts.appendingPathComponent("hls-check").path, [master, "--root", h.directory.path, "--json"])
        try #require(checked.status != 2, "m3u8 is not installed: \(checked.stderr)")
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.stdout.contains("\"starts\": [\n  0.0,\n  2.0,\n  4.0\n ]"), "\(checked.stdout)")
        // ffmpeg opens the multivariant playlist and decodes every variant to its 180 frames.
        for variant in ["0", "1"] {
            let decoded = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", master, "-map", "0:v:\(variant)", "-f", "framecrc", "-"])
            #expect(decoded.status == 0, "\(decoded.stderr)")
            #expect(decoded.stdout.split(separator: "\n").filter { $0.hasPrefix("0,") }.count == 180)
        }
        let low = try Self.presentation(h, bandwidthScale: 0.8)
        let refused = try h.run(Self.scripts.appendingPathComponent("hls-check").path, [low, "--root", h.directory.path])
        #expect(refused.status == 1 && refused.stderr.contains("below its peak segment rate"), "\(refused.stderr)")
    }

    @Test("video.js plays it to the end across a rendition switch, the captions at the SRT's times")
    func playsInVideoJS() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let master = try Self.presentation(h)
        let played = try h.run(Self.scripts.appendingPathComponent("play-in-chromium").path, [master, "--videojs", "--root", h.directory.path, "--timeout", "90"])
        try #require(played.status != 2, "Chromium or js.videojs is not installed: \(played.stderr)")
        #expect(played.status == 0, "\(played.stdout) \(played.stderr)")
        struct Result: Decodable {
            struct Track: Decodable { var language: String; var cues: [Cue] }
            struct Cue: Decodable { var start: Double; var end: Double; var text: String }
            var heights: [Int]
            var textTracks: [Track]
        }
        let result = try JSONDecoder().decode(Result.self, from: Data(played.stdout.utf8))
        // video.js may show the first variant's picture before the lowest is forced; then 90, then 180.
        #expect(result.heights.contains(90) && result.heights.last == 180, "\(result.heights)")
        let cues = try #require(result.textTracks.first { $0.language == "en" }).cues
        let expected: [(Double, Double, String)] = [(0.5, 1.5, "Hello"), (1.8, 2.6, "Across the cut"), (4.25, 5.0, "Last words")]
        #expect(cues.count == expected.count, "\(cues)")
        for (cue, (start, end, text)) in zip(cues, expected) {
            // Within a frame (1/30 s) of the SRT's times.
            #expect(abs(cue.start - start) <= 1.0 / 30 && abs(cue.end - end) <= 1.0 / 30 && cue.text == text, "\(cue)")
        }
    }
}
