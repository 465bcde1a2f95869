import Foundation
import TestSupport
import Testing

/// `--encrypt cenc|cbcs|aes-128 --content-key-file FILE` (issue 42): every initialization and media segment
/// encrypted with Common Encryption as it is published, for the MPD and the HLS playlists alike (or each
/// HLS media segment whole with AES-128);
/// judged by FFmpeg with and without the key against the clear output of the same options, by the
/// bytes of every file written, and by the command line's refusals.
@Suite("Encrypted output: Common Encryption of the segments both manifests list", .serialized)
struct EncryptedOutputTests {
    static let keyID = "0123456789abcdef0123456789abcdef"
    static let key = "00112233445566778899aabbccddeeff"

    /// A key file outside every output folder, readable by its owner only.
    static func keyFile(_ h: Harness, _ text: String = "\(keyID):\(key)\n", mode: mode_t = 0o600) throws -> String {
        let path = try h.write("lecture.key", text)
        chmod(path, mode)
        return path
    }

    /// `ffmpeg -f framemd5` of one stream (size and checksum of each frame), with extra input options.
    static func frames(_ h: Harness, _ input: String, stream: String, options: [String] = []) throws -> (status: Int32, lines: [String]) {
        let r = try h.run("ffmpeg", ["-hide_banner", "-loglevel", "error"] + options + ["-i", input, "-map", "0:\(stream)", "-f", "framemd5", "-"])
        let lines = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.suffix(2).joined(separator: ",")
        }
        return (r.status, lines)
    }

    /// Whether any file under `folder` holds the key's 16 bytes, or its hex or base64 text.
    static func keyAppears(under folder: String) throws -> [String] {
        let raw = Data(stride(from: 0, to: key.count, by: 2).map { UInt8(key.dropFirst($0).prefix(2), radix: 16) ?? 0 })
        let needles = [raw, Data(key.utf8), Data(key.uppercased().utf8), Data(raw.base64EncodedString().utf8),
                       Data(raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                            .replacingOccurrences(of: "=", with: "").utf8)]
        var found: [String] = []
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        for case let name as String in walker {
            let path = (folder as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            if needles.contains(where: { data.range(of: $0) != nil }) { found.append(name) }
        }
        return found
    }

    @Test("transcode .mpd --encrypt cenc: without the key no frame of the clear output; with -cenc_decryption_key exactly its frames; the key in no file written")
    func cencTranscode() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try DASHOutputTests.lecture(h)
        let config = try h.write("c.json", DASHOutputTests.config)
        let keyFile = try Self.keyFile(h)
        for folder in ["clear", "encrypted"] {
            try FileManager.default.createDirectory(atPath: h.path(folder), withIntermediateDirectories: true)
            let r = try h.videowm(arguments: ["transcode", input, h.path("\(folder)/lecture.mpd"), "-c", config, "--var", "email=ada@example.com",
                                              "--segment", "2", "--ladder", "108,54"]
                                  + (folder == "encrypted" ? ["--encrypt", "cenc", "--content-key-file", keyFile] : []))
            try #require(r.status == 0, "\(folder): \(r.stderr)")
        }
        let mpd = h.path("encrypted/lecture.mpd")
        let text = try String(contentsOfFile: mpd, encoding: .utf8)
        #expect(text.contains("value=\"cenc\" cenc:default_KID=\"01234567-89ab-cdef-0123-456789abcdef\""))
        #expect(text.contains("urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"), "the ClearKey system's descriptor")
        // probe describes the encrypted presentation without its key.
        let probed = try h.videowm("probe", mpd)
        #expect(probed.status == 0 && probed.stdout.contains("encrypted cenc KID 01234567-89ab-cdef-0123-456789abcdef (ClearKey")
                && probed.stdout.contains("stream 0: video h264"), "\(probed.stdout) \(probed.stderr)")
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror", "-cenc_decryption_key", Self.key, "-i", mpd, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
        for stream in ["v:0", "v:1", "a:0"] {
            let clear = try Self.frames(h, h.path("clear/lecture.mpd"), stream: stream)
            #expect(clear.status == 0 && clear.lines.count >= 180, "\(stream)")
            let decrypted = try Self.frames(h, mpd, stream: stream, options: ["-cenc_decryption_key", Self.key])
            #expect(decrypted.status == 0 && decrypted.lines == clear.lines, "\(stream): the decrypted frames differ from the clear output's")
            let withoutKey = try Self.frames(h, mpd, stream: stream)
            #expect(Set(withoutKey.lines).intersection(clear.lines).count <= 1, "\(stream): frames decoded without the key")
        }
        // The HLS playlists beside it list the same encrypted files, with a key tag naming no key.
        let playlists = try FileManager.default.contentsOfDirectory(atPath: h.path("encrypted")).filter { $0.hasSuffix(".m3u8") && $0 != "lecture.m3u8" }
        #expect(playlists.count == 3)
        for name in playlists {
            let playlist = try String(contentsOfFile: h.path("encrypted/\(name)"), encoding: .utf8)
            #expect(playlist.contains("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,URI=\"skd://\(Self.keyID)\""), "\(name)")
        }
        #expect(try Self.keyAppears(under: h.path("encrypted")).isEmpty)
        #expect(try Self.keyAppears(under: h.directory.path).contains("lecture.key"), "the search finds the key file itself")
    }

    @Test("batch of 2 with --dash --encrypt cbcs: shared segments encrypted once and still shared; each row decrypts to its clear row's frames; HLS says SAMPLE-AES; Chromium's Clear Key plays it")
    func cbcsBatch() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try DASHOutputTests.lecture(h)
        let config = try h.write("c.json", DASHOutputTests.config)
        let csv = try h.write("students.csv", "id,email\nalice,alice@example.com\nbob,bob@example.com\n")
        let keyFile = try Self.keyFile(h)
        for folder in ["clear", "encrypted"] {
            try FileManager.default.createDirectory(atPath: h.path(folder), withIntermediateDirectories: true)
            let r = try h.videowm(arguments: ["batch", input, "-c", config, "--vars", csv, "--output", h.path("\(folder)/{id}.m3u8"), "--dash",
                                              "--segment", "2", "-q"]
                                  + (folder == "encrypted" ? ["--encrypt", "cbcs", "--content-key-file", keyFile, "--licence-url", "https://platform.example/licence"] : []))
            try #require(r.status == 0, "\(folder): \(r.stderr)")
        }
        let clearShared = try FileManager.default.contentsOfDirectory(atPath: h.path("clear/shared-segments"))
        let encryptedShared = try FileManager.default.contentsOfDirectory(atPath: h.path("encrypted/shared-segments"))
        #expect(encryptedShared.count == clearShared.count && Set(encryptedShared).isDisjoint(with: clearShared),
                "as many shared files, none of them clear: \(encryptedShared.count) vs \(clearShared.count)")
        for student in ["alice", "bob"] {
            let mpd = h.path("encrypted/\(student).mpd")
            let text = try String(contentsOfFile: mpd, encoding: .utf8)
            #expect(text.contains("value=\"cbcs\"") && text.contains("https://platform.example/licence"))
            let clear = try Self.frames(h, h.path("clear/\(student).mpd"), stream: "v:0")
            let decrypted = try Self.frames(h, mpd, stream: "v:0", options: ["-cenc_decryption_key", Self.key])
            #expect(clear.lines.count == 180 && decrypted.lines == clear.lines, "\(student)")
            let withoutKey = try Self.frames(h, mpd, stream: "v:0")
            #expect(Set(withoutKey.lines).intersection(clear.lines).count <= 1, "\(student): frames decoded without the key")
            let playlists = try FileManager.default.contentsOfDirectory(atPath: h.path("encrypted")).filter { $0.hasPrefix("\(student)-") && $0.hasSuffix(".m3u8") }
            for name in playlists {
                let playlist = try String(contentsOfFile: h.path("encrypted/\(name)"), encoding: .utf8)
                #expect(playlist.contains("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"https://platform.example/licence\",KEYFORMAT=\"org.w3.clearkey\""), "\(name)")
            }
        }
        #expect(try Self.keyAppears(under: h.path("encrypted")).isEmpty)
        // Chromium's W3C Clear Key CDM (EME, through MSE) plays alice's cbcs video rendition to its end with the
        // key, its shared segments included, and fails on the first picture with another key.
        let video = try #require(try FileManager.default.contentsOfDirectory(atPath: h.path("encrypted"))
            .first { $0.hasPrefix("alice-") && $0.contains("-108p-") && $0.hasSuffix(".m3u8") })
        let played = try h.run(DASHOutputTests.playInChromium, [h.path("encrypted/\(video)"), "--hls", "--clearkey", "\(Self.keyID):\(Self.key)", "--timeout", "60"])
        try #require(played.status != 2, "Chromium is not installed: \(played.stderr)")
        #expect(played.status == 0 && played.stdout.contains("\"encrypted\": true") && played.stdout.contains("\"frames\": 180"),
                "\(played.stdout) \(played.stderr)")
        let wrongKey = try h.run(DASHOutputTests.playInChromium, [h.path("encrypted/\(video)"), "--hls", "--clearkey",
                                                                   "\(Self.keyID):ffeeddccbbaa99887766554433221100", "--timeout", "30"])
        #expect(wrongKey.status == 1, "\(wrongKey.stdout)")
    }

    @Test("transcode .m3u8 --encrypt aes-128: with the key at --key-uri ffmpeg decodes exactly the clear output's frames; without it none; a segment alone is not decodable; the key in no file written")
    func aes128Transcode() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try DASHOutputTests.lecture(h)
        let config = try h.write("c.json", DASHOutputTests.config)
        let keyFile = try Self.keyFile(h)
        // The key as the platform serves it: 16 raw bytes, outside the output folder.
        try FileManager.default.createDirectory(atPath: h.path("keys"), withIntermediateDirectories: true)
        let raw = Data(stride(from: 0, to: Self.key.count, by: 2).map { UInt8(Self.key.dropFirst($0).prefix(2), radix: 16) ?? 0 })
        try raw.write(to: URL(fileURLWithPath: h.path("keys/key.bin")))
        for folder in ["clear", "encrypted"] {
            try FileManager.default.createDirectory(atPath: h.path(folder), withIntermediateDirectories: true)
            let r = try h.videowm(arguments: ["transcode", input, h.path("\(folder)/lecture.m3u8"), "-c", config, "--var", "email=ada@example.com",
                                              "--segment", "2", "--ladder", "108"]
                                  + (folder == "encrypted" ? ["--encrypt", "aes-128", "--content-key-file", keyFile, "--key-uri", "../keys/key.bin"] : []))
            try #require(r.status == 0, "\(folder): \(r.stderr)")
        }
        let playlist = h.path("encrypted/lecture.m3u8")
        let options = ["-allowed_extensions", "ALL"]
        let strict = try h.run("ffmpeg", ["-v", "error", "-xerror"] + options + ["-i", playlist, "-map", "0", "-f", "null", "-"])
        #expect(strict.status == 0 && strict.stderr.isEmpty, "\(strict.stderr)")
        for stream in ["v:0", "a:0"] {
            let clear = try Self.frames(h, h.path("clear/lecture.m3u8"), stream: stream)
            let decrypted = try Self.frames(h, playlist, stream: stream, options: options)
            #expect(clear.lines.count >= 180 && decrypted.lines == clear.lines, "\(stream)")
        }
        let media = try FileManager.default.contentsOfDirectory(atPath: h.path("encrypted")).filter { $0.hasPrefix("lecture-108p-") && $0.hasSuffix(".m3u8") }
        let mediaText = try String(contentsOfFile: h.path("encrypted/\(try #require(media.first))"), encoding: .utf8)
        let segments = mediaText.split(separator: "\n").filter { $0.hasSuffix(".m4s") }.map(String.init)
        #expect(segments.count == 3 && mediaText.components(separatedBy: "#EXT-X-KEY:METHOD=AES-128,URI=\"../keys/key.bin\",IV=0x").count == 4)
        // A segment alone, with its initialization segment, holds no picture anyone can decode.
        let map = try #require(mediaText.split(separator: "\n").first { $0.hasPrefix("#EXT-X-MAP") }.map { String($0.dropFirst(16).dropLast()) })
        let alone = h.path("alone.mp4")
        try Data((FileManager.default.contents(atPath: h.path("encrypted/\(map)")) ?? Data()) + (FileManager.default.contents(atPath: h.path("encrypted/\(segments[1])")) ?? Data()))
            .write(to: URL(fileURLWithPath: alone))
        let aloneFrames = try Self.frames(h, alone, stream: "v:0")
        #expect(aloneFrames.status != 0 || aloneFrames.lines.isEmpty, "\(aloneFrames.lines.count) frames decoded from a segment alone")
        // Without the key (not served) ffmpeg gets no frame.
        try FileManager.default.removeItem(atPath: h.path("keys/key.bin"))
        let withoutKey = try Self.frames(h, playlist, stream: "v:0", options: options)
        #expect(withoutKey.status != 0 || withoutKey.lines.isEmpty, "\(withoutKey.lines.count) frames decoded without the key")
        #expect(try Self.keyAppears(under: h.path("encrypted")).isEmpty)
    }

    @Test("refused with one line: a malformed key file 65, one others can read 64, --encrypt on an .mp4 or without a key file 64; nothing written")
    func refusals() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 96, height: 64, seconds: 1)
        let config = try h.write("c.json", DASHOutputTests.config)
        let good = try Self.keyFile(h)
        let malformed = try h.write("bad.key", "0123456789abcdef:00112233\n")
        chmod(malformed, 0o600)
        let open = try h.write("open.key", "\(Self.keyID):\(Self.key)\n")
        chmod(open, 0o644)
        // A CPIX document cut short: not XML a key service would send.
        let cpix = try h.write("keys.cpix", #"<?xml version="1.0"?><cpix:CPIX xmlns:cpix="urn:dashif:org:cpix"><cpix:ContentKeyList>"#)
        chmod(cpix, 0o600)
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let base = ["transcode", input, h.path("out/x.mpd"), "-c", config, "--var", "email=e"]
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (base + ["--encrypt", "cenc", "--content-key-file", malformed], 65, "bad.key"),
            (base + ["--encrypt", "cenc", "--content-key-file", open], 64, "open.key"),
            (base + ["--encrypt", "cbcs", "--content-key-file", cpix], 65, "keys.cpix"),
            (["transcode", input, h.path("out/x.ts"), "-c", config, "--var", "email=e", "--encrypt", "cbcs", "--content-key-file", good], 64,
             "--encrypt applies to whole presentations"),
            (["transcode", input, h.path("out/x.mp4"), "-c", config, "--var", "email=e", "--encrypt", "cenc", "--content-key-file", good], 64,
             "--encrypt applies to whole presentations"),
            (base + ["--encrypt", "cbcs"], 64, "--encrypt needs --content-key-file"),
            (base + ["--content-key-file", good], 64, "needs --encrypt"),
            (base + ["--encrypt", "aes-128", "--content-key-file", good, "--key-uri", "k.bin"], 64, "DASH players cannot decrypt"),
            (["transcode", input, h.path("out/x.m3u8"), "-c", config, "--var", "email=e", "--encrypt", "aes-128", "--content-key-file", good], 64,
             "--encrypt aes-128 needs --key-uri"),
        ]
        for (arguments, status, says) in cases {
            let r = try h.videowm(arguments: arguments)
            #expect(r.status == status && r.stderr.contains(says) && r.stderr.split(separator: "\n").count == 1,
                    "\(arguments.suffix(4)): \(r.status) \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: h.path("out")).isEmpty)
    }
}
