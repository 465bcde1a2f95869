import Foundation
import Testing

/// `videowm serve` with `lecture.json`'s `"encryption": { "scheme": "aes-128", "keyFile": … }`
/// (issue 42): every media segment a student is served is encrypted whole (HLS AES-128), the key
/// is answered only to a token for the lecture, and real players — FFmpeg's HLS reader, hls.js in
/// headless Chromium — play a student's URL to its end, fetching the key with the token.
@Suite("serve: AES-128 encrypted lectures", .serialized)
struct ServeEncryptionTests {
    static let key = "00112233445566778899aabbccddeeff"

    /// The lab's `intro` encrypted with `intro/lecture.key`, and `plain`: the same video and marks, in the clear.
    static func encryptedLab(_ h: Harness) throws -> ServeLab {
        let lab = try ServeLab(h)
        let keyFile = h.path("library/intro/lecture.key")
        try Data("0123456789abcdef0123456789abcdef:\(Self.key)\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        _ = try h.write("library/intro/lecture.json", #"""
            { "video": "lecture.mp4", "config": "marks.json", "segment": 2,
              "encryption": { "scheme": "aes-128", "keyFile": "lecture.key" } }
            """#)
        try FileManager.default.createDirectory(atPath: h.path("library/plain"), withIntermediateDirectories: true)
        for file in ["lecture.mp4", "marks.json"] {
            try FileManager.default.copyItem(atPath: h.path("library/intro/\(file)"), toPath: h.path("library/plain/\(file)"))
        }
        _ = try h.write("library/plain/lecture.json", #"{ "video": "lecture.mp4", "config": "marks.json", "segment": 2 }"#)
        return lab
    }

    /// `ffmpeg -xerror -f framemd5` of a URL's video: each frame's size and checksum, times left out.
    static func frames(_ h: Harness, _ url: String) throws -> (status: Int32, lines: [String], stderr: String) {
        let r = try h.run("ffmpeg", ["-hide_banner", "-v", "error", "-xerror", "-i", url, "-map", "0:v", "-f", "framemd5", "-"])
        let lines = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.suffix(2).joined(separator: ",")
        }
        return (r.status, lines, r.stderr)
    }

    @Test("ffmpeg -xerror decodes a student's encrypted URL to the clear lecture's frames; hls.js plays it to the end; the key answers only this lecture's tokens; a segment alone does not decode")
    func encryptedLectureIsPlayedWithTheKeyOnlyItsTokensGet() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try Self.encryptedLab(h)
        let server = try lab.startServer()
        let token = try lab.tokens(["ada@example.com"])[0]
        let plainToken = try lab.tokens(["ada@example.com"], lecture: "plain")[0]

        // Every media segment is preceded by its key tag: the lecture's key URL with the token, an IV of its own.
        let fetched = try h.fetch(server.base + ServeLab.master(token))
        try #require(fetched.status == 200)
        let playlist = String(decoding: fetched.body, as: UTF8.self)
        let tags = playlist.split(separator: "\n").filter { $0.hasPrefix("#EXT-X-KEY:") }
        #expect(tags.count == ServeLab.segmentCount, "\(playlist)")
        #expect(tags.allSatisfy { $0.hasPrefix("#EXT-X-KEY:METHOD=AES-128,URI=\"/v1/intro/") && $0.contains("/key?token=\(token)\",IV=0x") })
        #expect(Set(tags).count == tags.count, "each segment has its own IV")
        #expect(!playlist.lowercased().contains(Self.key), "the key is in the playlist")
        let keyPath = try #require(tags.first?.firstMatch(of: /URI="([^"?]+)/)).1

        // FFmpeg fetches the key with the token and decodes every frame: those of the same student's clear copy.
        let encrypted = try Self.frames(h, server.base + ServeLab.master(token))
        let clear = try Self.frames(h, server.base + "/v1/plain/master.m3u8?token=" + plainToken)
        #expect(encrypted.status == 0 && encrypted.stderr.isEmpty, "\(encrypted.stderr)")
        #expect(clear.lines.count == 360 && encrypted.lines == clear.lines, "\(encrypted.lines.count) frames vs \(clear.lines.count)")

        // hls.js 1.6 in headless Chromium: to the end, a key fetched per segment, no error.
        let played = try h.run(ServePlaybackTests.player, [server.base + ServeLab.master(token), "--hlsjs", "--timeout", "120"])
        try #require(played.status != 2, "Chromium or hls.js is not installed (scripts/setup): \(played.stderr)")
        #expect(played.status == 0 && played.stdout.contains("\"ended\": true") && played.stdout.contains("\"version\": \"1.6."),
                "\(played.stdout) \(played.stderr)")
        struct Played: Decodable { var keys: Int; var fragments: Int }
        let result = try JSONDecoder().decode(Played.self, from: Data(played.stdout.utf8))
        #expect(result.keys >= 1 && result.fragments >= ServeLab.segmentCount, "\(played.stdout)")

        // The key: its 16 bytes with the token; 403 without one or with another lecture's; 404 for a clear lecture's.
        let key = try h.fetch(server.base + keyPath + "?token=" + token)
        #expect(key.status == 200 && key.body == Data(Self.hexBytes(Self.key)) && key.headers["cache-control"] == "no-store")
        #expect(try h.fetch(server.base + keyPath).status == 403)
        #expect(try h.fetch(server.base + keyPath + "?token=" + plainToken).status == 403)
        let plainRevision = try #require(String(decoding: try h.fetch(server.base + "/v1/plain/master.m3u8?token=" + plainToken).body, as: UTF8.self)
            .firstMatch(of: #/\/v1\/plain\/([0-9a-f]+)\//#)).1
        #expect(try h.fetch(server.base + "/v1/plain/\(plainRevision)/key?token=" + plainToken).status == 404)
        // An access-log line for the key, and nothing of the key or token in the log.
        #expect(server.log.contains("\"GET \(keyPath)\" 200 16"), "\(server.log)")
        #expect(!server.log.lowercased().contains(Self.key) && !server.log.contains(token))

        // A served segment alone (with its clear initialization segment) decodes to nothing.
        let uris = ServeLab.uris(in: playlist)
        let initialization = try h.fetch(server.base + uris[0]).body
        let own = try #require(uris.first { $0.contains("/own/") })
        let segment = try h.fetch(server.base + own).body
        try (initialization + segment).write(to: URL(fileURLWithPath: h.path("alone.mp4")))
        let alone = try Self.frames(h, h.path("alone.mp4"))
        #expect(alone.status != 0 || alone.lines.isEmpty, "an encrypted segment decoded without its key: \(alone.lines.count) frames")
        #expect(server.stop() == 0)
    }

    @Test("a key file others may read, a malformed one, an unknown scheme: the lecture is not served (404, one log line naming the problem); a new key makes a new revision")
    func badKeysStopTheLectureAndANewKeyMakesNewURLs() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try Self.encryptedLab(h)
        let server = try lab.startServer()
        let token = try lab.tokens(["ada@example.com"])[0]
        let before = String(decoding: try h.fetch(server.base + ServeLab.master(token)).body, as: UTF8.self)
        let revision = try #require(before.firstMatch(of: #/\/v1\/intro\/([0-9a-f]+)\//#)).1

        let keyFile = h.path("library/intro/lecture.key")
        let lectureFile = h.path("library/intro/lecture.json")
        let good = try String(contentsOfFile: lectureFile, encoding: .utf8)
        func refused(_ says: String) throws {
            usleep(1_100_000)  // the library rereads a lecture's files at most once a second
            let r = try h.fetch(server.base + ServeLab.master(token))
            #expect(r.status == 404, "\(says): \(r.status)")
            #expect(server.log.contains("lecture intro not served") && server.log.contains(says), "\(says): \(server.log)")
        }
        chmod(keyFile, 0o644)
        try refused("lecture.key")
        chmod(keyFile, 0o600)
        try Data("not a key\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        try refused("encryption.keyFile")
        _ = try h.write("library/intro/lecture.json", good.replacingOccurrences(of: "aes-128", with: "cenc"))
        try refused("encryption.scheme must be \"aes-128\", got \"cenc\"")

        // A new key: served again, under a new revision; the old revision's key URL is gone.
        _ = try h.write("library/intro/lecture.json", good)
        try Data("0123456789abcdef0123456789abcdef:ffeeddccbbaa99887766554433221100\n".utf8).write(to: URL(fileURLWithPath: keyFile))
        chmod(keyFile, 0o600)
        usleep(1_100_000)
        let after = try h.fetch(server.base + ServeLab.master(token))
        #expect(after.status == 200)
        let newRevision = try #require(String(decoding: after.body, as: UTF8.self).firstMatch(of: #/\/v1\/intro\/([0-9a-f]+)\//#)).1
        #expect(newRevision != revision)
        #expect(try h.fetch(server.base + "/v1/intro/\(revision)/key?token=" + token).status == 404)
        let key = try h.fetch(server.base + "/v1/intro/\(newRevision)/key?token=" + token)
        #expect(key.status == 200 && key.body == Data(Self.hexBytes("ffeeddccbbaa99887766554433221100")))
        #expect(try Self.frames(h, server.base + ServeLab.master(token)).lines.count == 360)
        #expect(server.stop() == 0)
    }

    static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }
}
