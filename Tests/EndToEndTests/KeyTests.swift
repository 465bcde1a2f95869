import Foundation
import Testing

/// Keys on the command line: `videowm keygen`, `--key-file` and `VIDEOWM_KEY_FILE`, key files
/// others can read refused, batch and trace saying when paths are not keyed, and the key's
/// bytes found in no output, report, log line, help page or error message.
@Suite("keys: keygen, key files, and the key kept out of every artefact")
struct KeyTests {
    static let config = #"{ "watermarks": [ { "text": "{email}", "opacity": 0.5, "animation": { "type": "random", "duration": 500 } } ] }"#

    static func mode(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) ?? -1
    }

    @Test func keygenWritesAnOwnerOnlyKeyAndNeverReplacesIt() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let key = h.path("platform.key")
        let made = try h.videowm("keygen", key)
        #expect(made.status == 0, "\(made.stderr)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: key))
        #expect(bytes.count == 32)
        #expect(try Self.mode(of: key) == 0o600)
        // A second key into the same file is refused, and the first is untouched.
        let again = try h.videowm("keygen", key)
        #expect(again.status == 73)
        #expect(again.stderr.contains("platform.key") && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: key)) == bytes)
        #expect(try h.videowm("keygen", h.path("no-such-folder/platform.key")).status == 73)
        // Two keys differ.
        let other = h.path("other.key")
        #expect(try h.videowm("keygen", other, "-q").stderr.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) != bytes)
    }

    @Test func keyFilesOthersCanReadAreRefused() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("clip.mp4", seconds: 1, audio: false)
        let config = try h.write("marks.json", Self.config)
        let key = h.path("loose.key")
        try h.videowm("keygen", key, "-q")
        chmod(key, 0o644)
        for arguments in [["transcode", clip, h.path("out.mp4"), "-c", config, "--var", "email=ada@example.com", "--key-file", key],
                          ["trace", clip, "--original", clip, "-c", config, "--vars", try h.write("rows.csv", "email\na@x\nb@x\n"), "--key-file", key]] {
            let result = try h.videowm(arguments: arguments)
            #expect(result.status == 64, "\(arguments[0]): \(result.stderr)")
            #expect(result.stderr.contains("loose.key") && result.stderr.contains("chmod 600"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: h.path("out.mp4")))
        let missing = try h.videowm("transcode", clip, h.path("out.mp4"), "-c", config, "--var", "email=a@x", "--key-file", h.path("none.key"))
        #expect(missing.status == 66 && missing.stderr.contains("none.key"), "\(missing.stderr)")
    }

    /// `VIDEOWM_KEY_FILE` names the key when `--key-file` is not given: the same pixels; without
    /// a key the path, and so the pixels, differ.
    @Test func theEnvironmentNamesTheKeyFile() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("clip.mp4", seconds: 2, audio: false)
        let config = try h.write("marks.json", Self.config)
        let key = h.path("platform.key")
        try h.videowm("keygen", key, "-q")
        let common = ["transcode", clip, "-c", config, "--var", "email=ada@example.com", "--preset", "ultrafast", "-q"]
        func transcode(_ name: String, _ extra: [String], environment: [String: String] = [:]) throws -> [String] {
            var arguments = common
            arguments.insert(h.path(name), at: 2)
            let result = try h.videowm(arguments: arguments + extra, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try h.packetChecksums(h.path(name), stream: "v:0")
        }
        let byOption = try transcode("option.mp4", ["--key-file", key])
        let byEnvironment = try transcode("environment.mp4", [], environment: ["VIDEOWM_KEY_FILE": key])
        let unkeyed = try transcode("unkeyed.mp4", [], environment: ["VIDEOWM_KEY_FILE": ""])
        #expect(byOption == byEnvironment)
        #expect(byOption != unkeyed)
    }

    @Test func batchWithoutAKeySaysSoOnce() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("clip.mp4", seconds: 1, audio: false)
        let config = try h.write("marks.json", Self.config)
        let rows = try h.write("rows.csv", "email,id\nada@example.com,1\ngrace@example.com,2\nalan@example.com,3\n")
        let key = h.path("platform.key")
        try h.videowm("keygen", key, "-q")
        try FileManager.default.createDirectory(atPath: h.path("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: h.path("b"), withIntermediateDirectories: true)
        let unkeyed = try h.videowm("batch", clip, "-c", config, "--vars", rows, "--output", h.path("a/{id}.mp4"), "--preset", "ultrafast",
                                    "--progress", "none")
        #expect(unkeyed.status == 0, "\(unkeyed.stderr)")
        let warnings = unkeyed.stderr.split(separator: "\n").filter { $0.contains("no key: each row's random path is seeded by its text alone") }
        #expect(warnings.count == 1, "\(unkeyed.stderr)")
        #expect(warnings.first?.contains("marks.json: watermarks[0]") == true && warnings.first?.contains("videowm keygen") == true)
        let keyed = try h.videowm("batch", clip, "-c", config, "--vars", rows, "--output", h.path("b/{id}.mp4"), "--preset", "ultrafast",
                                  "--progress", "none", "--key-file", key)
        #expect(keyed.status == 0 && !keyed.stderr.contains("no key"), "\(keyed.stderr)")
    }

    /// Every place the key could leak to: a batch's outputs, report, progress and log lines, a
    /// trace's text and JSON, the help pages, the error of a run that fails, and the outputs'
    /// metadata as ffprobe reads it; none holds the key's bytes, in hex (either case) or base64
    /// (standard or URL-safe, padded or not).
    @Test func theKeyAppearsInNoArtefact() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try h.makeClip("clip.mp4", seconds: 2, audio: true)
        let config = try h.write("marks.json", Self.config)
        let rows = try h.write("rows.csv", "email,id\nada@example.com,1\ngrace@example.com,2\n")
        let key = h.path("platform.key")
        try h.videowm("keygen", key, "-q")
        let keyBytes = try Data(contentsOf: URL(fileURLWithPath: key))
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)

        var texts: [String] = []
        func run(_ arguments: [String]) throws {
            let result = try h.videowm(arguments: arguments)
            texts += [result.stdout, result.stderr]
        }
        try run(["batch", clip, "-c", config, "--vars", rows, "--output", h.path("out/{id}.mp4"), "--key-file", key, "--preset", "ultrafast",
                 "--report", h.path("out/report.jsonl"), "--progress", "json", "-v", "--set-metadata", "comment=course copy"])
        try run(["batch", clip, "-c", config, "--vars", rows, "--output", h.path("out/{id}.m3u8"), "--key-file", key, "--preset", "ultrafast",
                 "--progress", "none", "-v"])
        for format in [["--json"], []] {
            try run(["trace", h.path("out/1.mp4"), "--original", clip, "-c", config, "--vars", rows, "--key-file", key] + format)
        }
        try run(["help"])
        for command in ["batch", "trace", "transcode", "keygen", "config"] { try run(["help", command]) }
        try run(["trace", "--help"])
        // Runs that fail with the key given: a bad config, and an output that exists.
        try run(["transcode", clip, h.path("out/1.mp4"), "-c", try h.write("bad.json", #"{ "watermarks": [ { "text": 3 } ] }"#),
                 "--key-file", key])
        try run(["transcode", clip, h.path("out/1.mp4"), "-c", config, "--var", "email=a@x", "--key-file", key])
        chmod(key, 0o640)
        try run(["transcode", clip, h.path("out/loose.mp4"), "-c", config, "--var", "email=a@x", "--key-file", key])
        chmod(key, 0o600)
        // Without the key, trace says that unkeyed paths can be forged.
        let unkeyed = try h.videowm("trace", h.path("out/1.mp4"), "--original", clip, "-c", config, "--vars", rows)
        #expect(unkeyed.stdout.contains("note: unkeyed paths: anyone who knows a student's text can compute their path"), "\(unkeyed.stdout)")

        var artefacts: [(String, Data)] = texts.enumerated().map { ("output \($0)", Data($1.utf8)) }
        let files = try FileManager.default.subpathsOfDirectory(atPath: h.directory.path).filter { $0 != "platform.key" }
        for file in files {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: h.path(file), isDirectory: &isFolder), !isFolder.boolValue else { continue }
            artefacts.append((file, try Data(contentsOf: URL(fileURLWithPath: h.path(file)))))
            if file.hasSuffix(".mp4") || file.hasSuffix(".m3u8") {
                artefacts.append(("ffprobe of \(file)", Data(try h.ffprobe(["-show_format", "-show_streams", h.path(file)]).utf8)))
            }
        }
        #expect(files.contains("out/report.jsonl") && files.contains("out/2.mp4") && files.contains("out/1.m3u8"))
        let hex = keyBytes.map { String(format: "%02x", $0) }.joined()
        let base64 = keyBytes.base64EncodedString()
        let base64URL = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let needles = [keyBytes, Data(hex.utf8), Data(hex.uppercased().utf8), Data(base64.utf8), Data(base64.trimmingCharacters(in: ["="]).utf8),
                       Data(base64URL.utf8), Data(base64URL.trimmingCharacters(in: ["="]).utf8)]
        for (name, bytes) in artefacts {
            for needle in needles {
                #expect(bytes.range(of: needle) == nil, "\(name) holds the key")
            }
        }
        #expect(artefacts.count > 20)
    }
}
