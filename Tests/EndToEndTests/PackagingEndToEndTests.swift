import Foundation
import Packaging
import TestSupport
import Testing

/// The packaging layer over what `videowm transcode` writes today, before the backbone drives it (issue 42): a
/// ladder's HLS files described by our MPD writer, decoded by FFmpeg's DASH reader to the HLS frames and played by
/// video.js in Chromium; the same
/// files encrypted with `cenc` and `cbcs` (FFmpeg with and without the key, Chromium's Clear Key through EME) and with
/// HLS AES-128 (FFmpeg through the playlist's key URI).
@Suite("Packaging the CLI's presentations: DASH, Common Encryption, HLS AES-128", .serialized)
struct PackagingEndToEndTests {
    static let config = #"{ "watermarks": [ { "text": "{email}", "size": 0.08, "opacity": 0.8, "anchor": "center" } ] }"#
    static let keyID = "0123456789abcdef0123456789abcdef"
    static let key = "00112233445566778899aabbccddeeff"
    static let otherKey = "ffeeddccbbaa99887766554433221100"

    /// One HLS rendition: its media playlist's initialization segment and media segments (names beside it).
    struct Rendition {
        var playlist: String
        var initialization: String
        var segments: [String]
        var codecs: String
        var width: Int?
        var height: Int?
        var bandwidth: Int
    }

    /// A 4-second 320×240 clip with AAC (B-frames) transcoded to a two-rung ladder with 2-s segments, a student's
    /// mark on every picture: the multivariant playlist, the video renditions (top first) and the audio rendition.
    static func ladder(_ h: Harness) throws -> (folder: String, video: [Rendition], audio: Rendition) {
        let input = try h.makeClip("in.mp4", seconds: 4, extra: ["-x264-params", "bframes=2:keyint=30"])
        let config = try h.write("c.json", config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("transcode", input, h.path("out/lecture.m3u8"), "-c", config, "--var", "email=ada@example.com",
                              "--ladder", "240,120", "--segment", "2")
        try #require(r.status == 0, "\(r.stderr)")
        let folder = h.path("out")
        let lines = try String(contentsOfFile: h.path("out/lecture.m3u8"), encoding: .utf8).split(separator: "\n").map(String.init)
        func attribute(_ name: String, _ line: String) -> String? {
            guard let range = line.range(of: name + "=") else { return nil }
            let rest = line[range.upperBound...]
            if rest.first == "\"" { return String(rest.dropFirst().prefix { $0 != "\"" }) }
            return String(rest.prefix { $0 != "," })
        }
        func rendition(_ playlist: String, codecs: String, resolution: String?, bandwidth: Int) throws -> Rendition {
            let (_, map, segments) = try HLSTests.read((folder as NSString).appendingPathComponent(playlist))
            let size = resolution?.split(separator: "x").compactMap { Int($0) }
            return Rendition(playlist: playlist, initialization: try #require(map), segments: segments, codecs: codecs,
                             width: size?.first, height: size?.last, bandwidth: bandwidth)
        }
        var video: [Rendition] = []
        var audioCodecs = "mp4a.40.2"
        for (n, line) in lines.enumerated() where line.hasPrefix("#EXT-X-STREAM-INF:") {
            let codecs = (attribute("CODECS", line) ?? "").split(separator: ",").map(String.init)
            audioCodecs = codecs.first { $0.hasPrefix("mp4a") } ?? audioCodecs
            video.append(try rendition(lines[n + 1], codecs: codecs.first { $0.hasPrefix("avc1") } ?? "", resolution: attribute("RESOLUTION", line),
                                       bandwidth: Int(attribute("BANDWIDTH", line) ?? "") ?? 0))
        }
        let audioLine = try #require(lines.first { $0.hasPrefix("#EXT-X-MEDIA:TYPE=AUDIO") })
        let audio = try rendition(try #require(attribute("URI", audioLine)), codecs: audioCodecs, resolution: nil, bandwidth: 64_000)
        #expect(video.count == 2 && video.allSatisfy { $0.segments.count == 2 } && audio.segments.count == 2)
        return (folder, video, audio)
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// An MPD over a ladder's files in `folder` (SegmentLists of their names, timelines read from the segments), with
    /// the ContentProtection of `scheme` when given, and a WebVTT sidecar as the text AdaptationSet.
    static func mpd(_ ladder: (folder: String, video: [Rendition], audio: Rendition), scheme: EncryptionScheme?, keys: ContentKeySet?,
                    folder: String) throws -> MediaPresentationDescription {
        func representation(_ rendition: Rendition, id: String, kind: ContentType) throws -> Representation {
            let initialization = try bytes((folder as NSString).appendingPathComponent(rendition.initialization))
            let tracks = try TrackDescription.tracks(ofInitialization: initialization)
            let timings = try rendition.segments.map { name in
                try #require(try SegmentTiming.read(segment: try bytes((folder as NSString).appendingPathComponent(name)),
                                                    initialization: tracks, trackID: tracks[0].trackID))
            }
            let list = SegmentList(timescale: tracks[0].timescale, initialization: rendition.initialization,
                                   timeline: SegmentTiming.timeline(timings), mediaURLs: rendition.segments)
            return Representation(id: id, bandwidth: rendition.bandwidth, codecs: rendition.codecs, width: rendition.width,
                                  height: rendition.height, frameRate: kind == .video ? FrameRate(30) : nil,
                                  sampleAspectRatio: kind == .video ? "1:1" : nil, audioSamplingRate: kind == .audio ? 48000 : nil,
                                  audioChannels: kind == .audio ? 1 : nil, segments: .list(list))
        }
        let protection = try scheme.map { scheme in
            ContentProtection.descriptors(scheme: scheme, keyID: try #require(keys).keys[0].keyID, keys: try #require(keys),
                                          clearKeyLicenceURL: "https://platform.example/licence")
        } ?? []
        let video = AdaptationSet(id: 0, contentType: .video, mimeType: "video/mp4", segmentAlignment: true, startWithSAP: 1,
                                  contentProtections: protection,
                                  representations: try ladder.video.map { try representation($0, id: "video-\($0.height ?? 0)", kind: .video) })
        let audio = AdaptationSet(id: 1, contentType: .audio, mimeType: "audio/mp4", language: "und", segmentAlignment: true, startWithSAP: 1,
                                  contentProtections: protection, representations: [try representation(ladder.audio, id: "audio", kind: .audio)])
        let text = AdaptationSet(id: 2, contentType: .text, mimeType: "text/vtt", language: "en", roles: ["subtitle"], segmentAlignment: false,
                                 representations: [Representation(id: "en", bandwidth: 256, segments: .single(url: "captions-en.vtt"))])
        return MediaPresentationDescription(duration: 4, periods: [Period(adaptationSets: [video, audio, text])])
    }

    /// FFmpeg's DASH reader opens only common media file extensions unless told; `.vtt` is the captions sidecar's.
    static let dashOptions = ["-allowed_extensions", "ALL"]

    /// `ffmpeg -f framemd5` of one stream: each frame's size and checksum.
    static func frames(_ h: Harness, _ input: String, stream: String, options: [String] = []) throws -> (status: Int32, lines: [String], errors: String) {
        let options = input.hasSuffix(".mpd") ? dashOptions + options : options
        let r = try h.run("ffmpeg", ["-hide_banner", "-loglevel", "error"] + options + ["-i", input, "-map", "0:\(stream)", "-f", "framemd5", "-"])
        let lines = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.suffix(2).joined(separator: ",")
        }
        return (r.status, lines, r.stderr)
    }

    /// Copies the ladder's files into `target` with every initialization and media segment encrypted, the playlists
    /// and captions as they are.
    static func encryptedCopy(_ ladder: (folder: String, video: [Rendition], audio: Rendition), scheme: EncryptionScheme,
                              keys: ContentKeySet, into target: String) throws {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let encryption = CommonEncryption(scheme: scheme, keys: keys)
        var done = Set<String>()
        for rendition in ladder.video + [ladder.audio] {
            let protected = try encryption.protect(initialization: try bytes((ladder.folder as NSString).appendingPathComponent(rendition.initialization)))
            try Data(protected.initialization).write(to: URL(fileURLWithPath: (target as NSString).appendingPathComponent(rendition.initialization)))
            for name in rendition.segments {
                let clear = try bytes((ladder.folder as NSString).appendingPathComponent(name))
                try Data(try protected.encrypt(segment: clear)).write(to: URL(fileURLWithPath: (target as NSString).appendingPathComponent(name)))
            }
            done.insert(rendition.initialization)
            done.formUnion(rendition.segments)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: ladder.folder) where !done.contains(name) {
            try FileManager.default.copyItem(atPath: (ladder.folder as NSString).appendingPathComponent(name), toPath: (target as NSString).appendingPathComponent(name))
        }
    }

    static func keyFile(_ h: Harness) throws -> (path: String, keys: ContentKeySet) {
        try FileManager.default.createDirectory(atPath: h.path("keys"), withIntermediateDirectories: true)
        let path = try h.write("keys/lecture.key", "\(keyID):\(key)\n")
        chmod(path, 0o600)
        return (path, try ContentKeySet.read(fromFile: path))
    }

    static let captions = "WEBVTT\n\n00:00:00.500 --> 00:00:02.000\nHello\n"

    @Test("an MPD over the ladder's own init and media segment files decodes with ffmpeg -xerror to the HLS renditions' frames; video.js plays it across a switch")
    func dashOverTheSameFiles() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let ladder = try Self.ladder(h)
        _ = try h.write("out/captions-en.vtt", Self.captions)
        let mpd = try Self.mpd(ladder, scheme: nil, keys: nil, folder: ladder.folder)
        let mpdPath = try h.write("out/lecture.mpd", mpd.xml)
        #expect(mpd.effectiveProfiles == [MediaPresentationDescription.mainProfile])

        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror"] + Self.dashOptions + ["-i", mpdPath, "-map", "0:v", "-map", "0:a", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
        for (n, rendition) in ladder.video.enumerated() {
            let hls = try Self.frames(h, (ladder.folder as NSString).appendingPathComponent(rendition.playlist), stream: "v:0")
            let dash = try Self.frames(h, mpdPath, stream: "v:\(n)")
            #expect(hls.status == 0 && hls.lines.count == 120, "\(hls.errors)")
            #expect(dash.lines == hls.lines, "representation \(n): DASH frames differ from the HLS rendition's")
        }
        let hlsAudio = try Self.frames(h, (ladder.folder as NSString).appendingPathComponent(ladder.audio.playlist), stream: "a:0")
        #expect(hlsAudio.lines.count > 150)
        #expect(try Self.frames(h, mpdPath, stream: "a:0").lines == hlsAudio.lines)
        // video.js (VHS, from PyPI's js.videojs) plays the MPD in Chromium to its end across a forced switch from the
        // 120-line Representation to the 240-line one, the WebVTT sidecar's cue loaded.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/play-in-chromium").path
        let played = try h.run(script, [mpdPath, "--dash", "--timeout", "90"])
        try #require(played.status != 2, "Chromium or js.videojs is not installed: \(played.stderr)")
        #expect(played.status == 0 && played.stdout.contains("\"heights\": [120, 240]") && played.stdout.contains("\"text\": \"Hello\""),
                "\(played.stdout) \(played.stderr)")
        // Our reader lists what the MPD offers.
        let read = try MediaPresentationDescription(parsing: try Self.bytes(mpdPath), file: mpdPath)
        #expect(read.representationSummaries.count == 4)
        #expect(read.representationSummaries[0].hasPrefix("video video-240, avc1.") && read.representationSummaries[0].contains("320x240, 30 fps"))
    }

    @Test("cenc: without the key ffmpeg gets none of the pictures; with -cenc_decryption_key every frame of the clear output; the key is nowhere in the folder")
    func cencEncryptedLadder() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let ladder = try Self.ladder(h)
        let (_, keys) = try Self.keyFile(h)
        let encrypted = h.path("encrypted")
        try Self.encryptedCopy(ladder, scheme: .cenc, keys: keys, into: encrypted)
        _ = try h.write("out/captions-en.vtt", Self.captions)
        _ = try h.write("encrypted/captions-en.vtt", Self.captions)
        let clearMPD = try h.write("out/lecture.mpd", try Self.mpd(ladder, scheme: nil, keys: nil, folder: ladder.folder).xml)
        let mpd = try Self.mpd(ladder, scheme: .cenc, keys: keys, folder: encrypted)
        let mpdPath = try h.write("encrypted/lecture.mpd", mpd.xml)
        #expect(mpd.xml.contains("cenc:default_KID=\"01234567-89ab-cdef-0123-456789abcdef\""))

        for stream in ["v:0", "v:1", "a:0"] {
            let clear = try Self.frames(h, clearMPD, stream: stream)
            #expect(clear.status == 0 && clear.lines.count >= 120)
            let decrypted = try Self.frames(h, mpdPath, stream: stream, options: ["-cenc_decryption_key", Self.key])
            #expect(decrypted.status == 0 && decrypted.errors.isEmpty && decrypted.lines == clear.lines, "\(stream): \(decrypted.errors)")
            let withoutKey = try Self.frames(h, mpdPath, stream: stream)
            #expect(Set(withoutKey.lines).intersection(clear.lines).count <= 1, "\(stream): frames decoded without the key")
        }
        // ffmpeg -xerror stops at the first damaged picture when the key is missing.
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror"] + Self.dashOptions + ["-i", mpdPath, "-map", "0:v:0", "-f", "null", "-"])
        #expect(strict.status != 0)

        // The content key's bytes, in any spelling, appear in no file of the encrypted presentation.
        let raw = keys.keys[0].withUnsafeBytes { Array($0) }
        let spellings: [[UInt8]] = [raw, Array(Self.key.utf8), Array(Self.key.uppercased().utf8), Array(Data(raw).base64EncodedString().utf8),
                                    Array(Data(raw).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "").utf8)]
        for name in try FileManager.default.contentsOfDirectory(atPath: encrypted) {
            let content = try Self.bytes((encrypted as NSString).appendingPathComponent(name))
            for spelling in spellings { #expect(!Self.contains(content, spelling), "\(name) holds the key") }
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0] == needle[0] && Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    @Test("cbcs: FFmpeg 5.1's cbcs decryption gives every frame; Chromium plays the encrypted rendition to its end through Clear Key EME, and not with another key")
    func cbcsEncryptedLadder() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let ladder = try Self.ladder(h)
        let (_, keys) = try Self.keyFile(h)
        let encrypted = h.path("encrypted")
        try Self.encryptedCopy(ladder, scheme: .cbcs, keys: keys, into: encrypted)
        _ = try h.write("out/captions-en.vtt", Self.captions)
        _ = try h.write("encrypted/captions-en.vtt", Self.captions)
        let clearMPD = try h.write("out/lecture.mpd", try Self.mpd(ladder, scheme: nil, keys: nil, folder: ladder.folder).xml)
        let mpdPath = try h.write("encrypted/lecture.mpd", try Self.mpd(ladder, scheme: .cbcs, keys: keys, folder: encrypted).xml)
        for stream in ["v:0", "v:1", "a:0"] {
            let clear = try Self.frames(h, clearMPD, stream: stream)
            let decrypted = try Self.frames(h, mpdPath, stream: stream, options: ["-cenc_decryption_key", Self.key])
            #expect(clear.lines.count >= 120 && decrypted.errors.isEmpty && decrypted.lines == clear.lines, "\(stream): \(decrypted.errors)")
            #expect(Set(try Self.frames(h, mpdPath, stream: stream).lines).intersection(clear.lines).count <= 1)
        }

        // Chromium: the top video rendition's and the audio rendition's media playlists, their segments appended
        // through MSE, the keys from a Clear Key licence; another key for the same key ID is a decode error.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/play-in-chromium").path
        for rendition in [ladder.video[0], ladder.audio] {
            let playlist = (encrypted as NSString).appendingPathComponent(rendition.playlist)
            let played = try h.run(script, [playlist, "--hls", "--clearkey", "\(Self.keyID):\(Self.key)", "--timeout", "90"])
            try #require(played.status != 2, "Chromium is not installed: \(played.stderr)")
            #expect(played.status == 0, "\(played.stdout) \(played.stderr)")
            #expect(played.stdout.contains("\"encrypted\": true") && played.stdout.contains("\"segments\": 2"), "\(played.stdout)")
            if rendition.playlist == ladder.video[0].playlist { #expect(played.stdout.contains("\"frames\": 120"), "\(played.stdout)") }
            let refused = try h.run(script, [playlist, "--hls", "--clearkey", "\(Self.keyID):\(Self.otherKey)", "--timeout", "60"])
            #expect(refused.status == 1 && refused.stdout.contains("PIPELINE_ERROR_DECODE"), "played with the wrong key: \(refused.stdout)")
        }
    }

    @Test("a presentation without ladder (video and audio in each segment) encrypted in place: ffmpeg's HLS reader decrypts cenc and cbcs to every frame, Chromium plays the cenc one")
    func muxedSegmentsEncrypted() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 4, extra: ["-x264-params", "bframes=2:keyint=30"])
        let config = try h.write("c.json", Self.config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("transcode", input, h.path("out/lecture.m3u8"), "-c", config, "--var", "email=ada@example.com", "--segment", "1")
        try #require(r.status == 0, "\(r.stderr)")
        let (_, keys) = try Self.keyFile(h)
        let (lines, map, segments) = try HLSTests.read(h.path("out/lecture.m3u8"))
        let initialization = try #require(map)
        for scheme in EncryptionScheme.allCases {
            let folder = h.path(scheme.rawValue)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let protected = try CommonEncryption(scheme: scheme, keys: keys).protect(initialization: try Self.bytes(h.path("out/\(initialization)")))
            #expect(protected.tracks.compactMap(\.protection).count == 2)
            try Data(protected.initialization).write(to: URL(fileURLWithPath: "\(folder)/\(initialization)"))
            for name in segments {
                try Data(try protected.encrypt(segment: try Self.bytes(h.path("out/\(name)")))).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
            }
            let playlist = try h.write("\(scheme.rawValue)/lecture.m3u8", lines.joined(separator: "\n") + "\n")
            for stream in ["v:0", "a:0"] {
                let clear = try Self.frames(h, h.path("out/lecture.m3u8"), stream: stream)
                let decrypted = try Self.frames(h, playlist, stream: stream, options: ["-seg_format_options", "decryption_key=\(Self.key)"])
                #expect(clear.lines.count >= 120 && decrypted.errors.isEmpty && decrypted.lines == clear.lines, "\(scheme) \(stream): \(decrypted.errors)")
            }
            guard scheme == .cenc else { continue }
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/play-in-chromium").path
            let played = try h.run(script, [playlist, "--hls", "--clearkey", "\(Self.keyID):\(Self.key)", "--timeout", "90"])
            try #require(played.status != 2, "Chromium is not installed: \(played.stderr)")
            #expect(played.status == 0 && played.stdout.contains("\"frames\": 120"), "\(played.stdout) \(played.stderr)")
        }
    }

    @Test("HLS AES-128: ffmpeg plays the playlist with EXT-X-KEY (key file outside the folder, derived IVs) to every frame; a segment alone is not decodable")
    func aes128Presentation() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", seconds: 4, extra: ["-x264-params", "bframes=2:keyint=30"])
        let config = try h.write("c.json", Self.config)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let r = try h.videowm("transcode", input, h.path("out/lecture.m3u8"), "-c", config, "--var", "email=ada@example.com", "--segment", "1")
        try #require(r.status == 0, "\(r.stderr)")
        let (_, keys) = try Self.keyFile(h)
        let key = keys.keys[0]
        // The key as a player fetches it: 16 raw bytes, outside the output folder.
        let keyBin = h.path("keys/key.bin")
        try Data(key.withUnsafeBytes { Array($0) }).write(to: URL(fileURLWithPath: keyBin))

        let (lines, _, segments) = try HLSTests.read(h.path("out/lecture.m3u8"))
        try FileManager.default.createDirectory(atPath: h.path("aes"), withIntermediateDirectories: true)
        var playlist: [String] = []
        var ivs = Set<[UInt8]>()
        for line in lines {
            if segments.contains(line) {
                let clear = try Self.bytes(h.path("out/\(line)"))
                let encrypted = try AES128Segments.encrypt(clear, key: key, iv: .derived)
                ivs.insert(encrypted.iv)
                try Data(encrypted.bytes).write(to: URL(fileURLWithPath: h.path("aes/\(line)")))
                // Before each segment: its IV (the EXTINF line just written stays next to its URI).
                let extinf = playlist.removeLast()
                playlist += [HLSKeyTag.aes128(uri: "../keys/key.bin", iv: encrypted.iv).line, extinf, line]
            } else {
                playlist.append(line)
                if line.hasPrefix("#EXT-X-MAP:URI=\"") {
                    let name = String(line.dropFirst(16).dropLast())
                    try FileManager.default.copyItem(atPath: h.path("out/\(name)"), toPath: h.path("aes/\(name)"))
                }
            }
        }
        #expect(ivs.count == segments.count && segments.count == 4)
        let aesPlaylist = try h.write("aes/lecture.m3u8", playlist.joined(separator: "\n") + "\n")

        let clear = try Self.frames(h, h.path("out/lecture.m3u8"), stream: "v:0")
        let options = ["-allowed_extensions", "ALL"]
        let decrypted = try Self.frames(h, aesPlaylist, stream: "v:0", options: options)
        #expect(clear.lines.count == 120 && decrypted.errors.isEmpty && decrypted.lines == clear.lines, "\(decrypted.errors)")
        #expect(try Self.frames(h, aesPlaylist, stream: "a:0", options: options).lines == Self.frames(h, h.path("out/lecture.m3u8"), stream: "a:0").lines)
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror"] + options + ["-i", aesPlaylist, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")

        // A segment taken alone (with its initialization segment) holds no frame anyone can decode.
        let map = try #require(lines.first { $0.hasPrefix("#EXT-X-MAP") }.map { String($0.dropFirst(16).dropLast()) })
        let alone = h.path("alone.mp4")
        try Data(try Self.bytes(h.path("aes/\(map)")) + (try Self.bytes(h.path("aes/\(segments[1])")))).write(to: URL(fileURLWithPath: alone))
        #expect(try h.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames",
                                      "-of", "csv=p=0", alone]).stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("0")
                || (try h.run("ffmpeg", ["-v", "error", "-i", alone, "-f", "null", "-"])).status != 0)
        // The key is in no file of the output folder, and the playlist names it only by URI.
        for name in try FileManager.default.contentsOfDirectory(atPath: h.path("aes")) {
            let content = try Self.bytes(h.path("aes/\(name)"))
            #expect(!Self.contains(content, key.withUnsafeBytes { Array($0) }) && !Self.contains(content, Array(Self.key.utf8)))
        }
    }
}
