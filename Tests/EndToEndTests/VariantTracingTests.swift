import Foundation
import Testing
import TestSupport

/// Issue 29's tracing acceptance on a small lecture (the issue's scale, 10 minutes at 720p for
/// 300 rows, is `scripts/variant-trace-table`'s, docs/design/measurements.md's variant-layer table): one batch of a
/// 56-s lecture at 160×90 with a variant layer of 1-s periods and the e-mail shown 2 s of every
/// 12, for a class of 30; leaks made with ffmpeg from its copies and traced against the class.
/// A row's own periods (its e-mail's) carry no variant, so 46 of the 56 periods carry its code.
/// One row's copy, its first 44 s with the e-mail's spans cut out (so the leak joins four parts
/// of the lecture), then cropped 10 % per side or blurred, names that row and nobody else; two
/// copies averaged and three mixed segment by segment stand out as their rows; a copy traced
/// under another key and a forged sequence name nobody.
@Suite("variant layers: tracing leaks")
struct VariantTracingTests {
    @Test(arguments: [("cropped 10 % per side", "crop=iw*0.8:ih*0.8:iw*0.1:ih*0.1"), ("blurred (sigma 1 px at 160)", "gblur=sigma=1")])
    func oneRowsCopyWithoutTheEmailNamesThatRow(leak: String, filter: String) throws {
        let media = try VariantTraceMedia.shared.get()
        let path = try media.excerpt(of: media.copy(row: 1), name: "row1-\(filter.prefix(4)).mp4", filter: filter, cutEmail: true)
        let report = try media.trace(path)
        let variants = try #require(report.variants)
        #expect(variants.named.map(\.row) == [1], "\(leak): \(variants)")
        print("row 1's copy, \(leak): \(variants.summary)")
        // The leak joins four parts of the lecture, each compared with its own seconds.
        let parts = report.alignment?.parts ?? []
        #expect(parts.count == 4, "\(leak): \(parts)")
        for (part, offset) in zip(parts, VariantTraceMedia.cutOffsets) {
            #expect(abs(part.offsetSeconds - offset) < 0.02, "\(leak): \(part) against an offset of \(offset) s")
        }
    }

    /// Averaged, each period shows both copies' variants; mixed, each period one of three. At
    /// this length (46 periods with a symbol) averaging names both rows, and the three mixed rows are the
    /// three strongest of the class (naming all three takes about 10 minutes: docs/design/measurements.md's table).
    @Test func averagedAndMixedCopiesStandOutAsTheirRows() throws {
        let media = try VariantTraceMedia.shared.get()
        let averaged = try media.trace(media.averaged(rows: [1, 2]))
        let pair = try #require(averaged.variants)
        #expect(Set(pair.named.map(\.row)) == [1, 2], "averaged: \(pair)")
        print("rows 1 and 2 averaged: \(pair.summary)")

        let mixed = try media.trace(media.mixed(rows: [1, 2, 3]))
        let three = try #require(mixed.variants)
        #expect(Set(three.ranking.prefix(3).map(\.row)) == [1, 2, 3], "mixed: \(three)")
        #expect(three.named.allSatisfy { [1, 2, 3].contains($0.row) }, "mixed: \(three)")
        print("rows 1, 2 and 3 mixed segment by segment: \(three.summary)")
    }

    /// Under another key the class's codewords are unrelated to the copy (as a copy made with
    /// another key is to the platform's); a forged sequence (every shared segment swapped for a
    /// variant picked at random among those of students outside the class) follows nobody's.
    @Test func anotherKeyAndAForgedSequenceNameNobody() throws {
        let media = try VariantTraceMedia.shared.get()
        let copy = try media.excerpt(of: media.copy(row: 1), name: "row1.mp4", filter: nil, cutEmail: false)
        let foreign = try #require(try media.trace(copy, key: media.otherKey).variants)
        #expect(foreign.named.isEmpty && foreign.periodsRead > 35, "another key: \(foreign)")
        print("row 1's copy under another key: \(foreign.summary)")

        let forged = try #require(try media.trace(media.forgery(of: 1)).variants)
        #expect(forged.named.isEmpty && forged.periodsRead > 25, "forgery: \(forged)")
        print("row 1's copy with a forged sequence: \(forged.summary)")
    }
}

/// What `trace --json` says of a leak, as far as these tests look.
struct VariantTraceReport: Decodable {
    struct Part: Decodable { var leakStartSeconds: Double, leakEndSeconds: Double, offsetSeconds: Double }
    struct Alignment: Decodable { var parts: [Part] }
    struct Row: Decodable { var row: Int, score: Double, falseAccusationProbability: Double }
    struct Variants: Decodable {
        var periods: Int, periodsCovered: Int, periodsRead: Int
        var threshold: Double?
        var named: [Row], ranking: [Row]

        var summary: String {
            let rows = ranking.prefix(4).map { "row \($0.row) \(String(format: "%.1e", $0.falseAccusationProbability))" }
            return "named \(named.map(\.row)), \(periodsRead) of \(periodsCovered) periods read, strongest: \(rows.joined(separator: ", "))"
        }
    }
    var alignment: Alignment?
    var variants: Variants?
}

/// The suite's media, made once: the lecture, a class of 30, one batch of rows 1–3 and four
/// students outside the class (whose shared variant files the forgery is made of).
final class VariantTraceMedia: @unchecked Sendable {
    static let shared = Result { try VariantTraceMedia() }
    static let seconds = 56, emailEvery = 12.0, emailShown = 2.0
    /// A leak of the whole lecture without the e-mail's spans shows from frame 62 (2.067 s) of
    /// every 12 s to its end (the last part 6 s: a part much shorter than a few seconds may not
    /// be told apart, `LeakTimeline.cutCost`): each part 62 frames later than the one before,
    /// these offsets (original time − leak time).
    static let cutOffsets = (1...4).map { Double($0) * 62 / 30 }
    /// Such a leak ends at 44 s of the lecture: four parts (the averaged and mixed leaks need all
    /// 56 s: a row's own periods carry no symbol, so 46 of the 56 do).
    static let cutEnd = 44.0
    static let config = #"""
        { "watermarks": [ { "text": "CS 101", "tile": { "angle": -30 }, "opacity": 0.15, "outline": { "width": 0.004, "color": "#000000" },
                            "variants": { "count": 4, "seconds": 1, "lecture": "cs101-week1", "student": "{email}" } },
                          { "text": "{email}", "size": 0.06, "interval": 2000, "skip": 10000, "animation": { "type": "random", "duration": 1000 } } ] }
        """#

    let harness: Harness
    let lecture: String
    let configPath: String
    let students: String
    let key: String
    let otherKey: String
    private let outsiders = (1...4).map { "outsider\($0)@elsewhere.example.org" }

    private nonisolated(unsafe) static var directory: String?

    private init() throws {
        let h = try Harness()
        harness = h
        atexit { try? FileManager.default.removeItem(atPath: VariantTraceMedia.directory ?? "") }
        VariantTraceMedia.directory = h.directory.path
        lecture = try h.makeClip("lecture.mp4", width: 160, height: 90, seconds: Double(Self.seconds), audio: false)
        configPath = try h.write("variants.json", Self.config)
        students = try h.write("class.csv", "email\n" + (1...30).map { "student\($0)@example.edu\n" }.joined())
        // A fixed key (owner-only, as videowm requires), so every run makes the same copies and
        // the same leaks: the margins are the same each run. The other key is a fresh one.
        key = h.path("platform.key")
        guard FileManager.default.createFile(atPath: key, contents: Data((0..<32).map { UInt8(($0 * 71 + 13) % 256) }),
                                             attributes: [.posixPermissions: 0o600]) else { throw HarnessError.toolFailed("writing \(key)") }
        otherKey = h.path("other.key")
        guard try h.videowm("keygen", otherKey, "-q").status == 0 else { throw HarnessError.toolFailed("keygen") }
        let rows = try h.write("rows.csv", "email\n" + ((1...3).map { "student\($0)@example.edu" } + outsiders).map { $0 + "\n" }.joined())
        try FileManager.default.createDirectory(atPath: h.path("out"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", lecture, "--vars", rows, "-c", configPath, "-o", h.path("out/{email}.m3u8"), "--key-file", key,
                                  "--preset", "ultrafast", "--threads", "1", "-q")
        guard batch.status == 0 else { throw HarnessError.toolFailed("batch: \(batch.stderr)") }
    }

    /// A playlist's initialization segment and media segments, as paths.
    func parts(of email: String) throws -> (initialization: String, segments: [String]) {
        let lines = try String(contentsOfFile: harness.path("out/\(email).m3u8"), encoding: .utf8).split(separator: "\n").map(String.init)
        guard let map = lines.first(where: { $0.hasPrefix("#EXT-X-MAP:URI=\"") }) else { throw HarnessError.toolFailed("\(email): no map") }
        let initialization = String(map.dropFirst("#EXT-X-MAP:URI=\"".count).prefix { $0 != "\"" })
        return (harness.path("out/" + initialization), lines.filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { harness.path("out/" + $0) })
    }

    /// The parts in one file (what batch writes for an .mp4 row), made once.
    func joined(_ name: String, _ parts: () throws -> [String]) throws -> String {
        let path = harness.path(name)
        guard !FileManager.default.fileExists(atPath: path) else { return path }
        var bytes = Data()
        for part in try parts() { bytes += try Data(contentsOf: URL(fileURLWithPath: part)) }
        try bytes.write(to: URL(fileURLWithPath: path))
        return path
    }

    func copy(row: Int) throws -> String {
        try joined("copy-\(row).mp4") {
            let (initialization, segments) = try parts(of: "student\(row)@example.edu")
            return [initialization] + segments
        }
    }

    /// `source` re-encoded at CRF 30 through `filter`; when `cutEmail`, its first 44 s without the seconds the e-mail shows in.
    func excerpt(of source: String, name: String, filter: String?, cutEmail: Bool) throws -> String {
        let path = harness.path(name)
        let cut = "select='lt(t,\(Self.cutEnd))*gte(mod(t,\(Self.emailEvery)),\(Self.emailShown + 0.05))',setpts=N/(30*TB)"
        let graph = ((cutEmail ? [cut] : []) + (filter.map { [$0] } ?? []) + ["format=yuv420p"]).joined(separator: ",")
        try harness.ffmpeg(["-i", source, "-an", "-vf", graph, "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", path])
        return path
    }

    /// The rows' copies averaged frame by frame (ffmpeg's mix), CRF 30.
    func averaged(rows: [Int]) throws -> String {
        let path = harness.path("averaged.mp4")
        let inputs = try rows.flatMap { ["-i", try copy(row: $0)] }
        let mix = rows.indices.map { "[\($0):v]" }.joined() + "mix=inputs=\(rows.count),format=yuv420p[v]"
        try harness.ffmpeg(inputs + ["-filter_complex", mix, "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "30", path])
        return path
    }

    /// Each segment taken from one of the rows' copies at random, CRF 30.
    func mixed(rows: [Int]) throws -> String {
        var random = SplitMix64(seed: 29)
        let lists = try rows.map { try parts(of: "student\($0)@example.edu") }
        let joined = try joined("mixed-segments.mp4") {
            [lists[0].initialization] + lists[0].segments.indices.map { lists[random.below(rows.count)].segments[$0] }
        }
        return try excerpt(of: joined, name: "mixed.mp4", filter: nil, cutEmail: false)
    }

    /// Row `row`'s copy with every shared segment swapped for a variant of that segment picked at
    /// random among the outsiders' (nobody in the class's sequence), its own e-mail segments cut out.
    func forgery(of row: Int) throws -> String {
        var random = SplitMix64(seed: 30)
        let own = try parts(of: "student\(row)@example.edu")
        let others = try outsiders.map { try parts(of: $0).segments }
        let joined = try joined("forged-segments.mp4") {
            [own.initialization] + own.segments.indices.map { k in
                let shared = Set(others.map { $0[k] }.filter { $0.contains("shared-segments/") }).sorted()
                return shared.isEmpty ? own.segments[k] : shared[random.below(shared.count)]
            }
        }
        return try excerpt(of: joined, name: "forged.mp4", filter: nil, cutEmail: true)
    }

    func trace(_ leak: String, key: String? = nil) throws -> VariantTraceReport {
        let result = try harness.videowm("trace", leak, "--original", lecture, "-c", configPath, "--vars", students,
                                         "--key-file", key ?? self.key, "--json", "--top", "5")
        guard result.status == 0 || result.status == 1 else { throw HarnessError.toolFailed("trace: \(result.stderr)") }
        return try JSONDecoder().decode(VariantTraceReport.self, from: result.stdoutData)
    }
}
