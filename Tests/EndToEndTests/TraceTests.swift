import Animation
import Foundation
import Overlay
import Testing
import TestSupport
import VideoWM

/// `videowm trace` on leaks made the way a careful leaker makes them: a lecture marked for
/// 200 students with a keyed `random` path (5 s slots, opacity 0.4), three students' copies
/// leaked as 61 s re-encoded at CRF 35, trimmed to start 37.3 s in, cropped 8% left and 5% top,
/// scaled to 640×360, converted to 25 fps, with a Gaussian blur over every mark position so
/// no glyph is left; the unmarked lecture leaked the same way; and two forgeries of row 17 on
/// the clean lecture: its address drawn (same font, size, opacity) along the path it would have
/// without the key, and along random places.
@Suite("trace: naming the row behind a leak")
struct TraceTests {
    static let leakedRows = [17, 77, 150]
    static let forgedRow = 17

    @Test(arguments: leakedRows)
    func theLeakedRowIsIdentified(row: Int) throws {
        let media = try TraceMedia.shared.get()
        let result = try media.trace(media.leaks[row]!)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.ranking.first?.row == row)
        #expect(report.identified.map(\.row) == [row])
        #expect((report.identified.first?.falseMatchProbability ?? 1) <= report.threshold)
        #expect(report.keyed && report.warning == nil && report.forgery == nil)
        let alignment = try #require(report.alignment)
        #expect(abs(alignment.offsetSeconds - 37.3) < 0.1)
        #expect(abs(alignment.crop.left - 0.08) < 0.01 && abs(alignment.crop.top - 0.05) < 0.01)
        // The whole leak's picture shows the lecture.
        #expect(alignment.picture.width > 0.98 * Double(alignment.leakWidth) && alignment.picture.height > 0.98 * Double(alignment.leakHeight))
    }

    @Test func anUnmarkedCopyIdentifiesNobody() throws {
        let media = try TraceMedia.shared.get()
        let result = try media.trace(media.unmarkedLeak)
        #expect(result.status == 1, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.identified.isEmpty)
        #expect((report.ranking.first?.falseMatchProbability ?? 0) > report.threshold)
        #expect(report.forgery == nil, "\(String(describing: report.forgery))")
    }

    /// A forger who knows a classmate's address draws it along the path the unkeyed config
    /// gives, or anywhere: with the key, nobody is identified, and the marks are called forged
    /// (the first even names the path it imitates).
    @Test func marksAlongTheUnkeyedPathAreForged() throws {
        let media = try TraceMedia.shared.get()
        let result = try media.trace(media.forgeries["unkeyed"]!)
        #expect(result.status == 1, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.identified.isEmpty)
        let found = try #require(report.forgery)
        #expect(found.message.hasPrefix("forged or foreign marks: the marks follow the path row \(Self.forgedRow) would have without the key"),
                "\(found.message)")
        #expect(found.unkeyedMatches == [Self.forgedRow])
    }

    @Test func marksAlongRandomPlacesAreForged() throws {
        let media = try TraceMedia.shared.get()
        let result = try media.trace(media.forgeries["random"]!, json: false)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("identified: nobody"), "\(result.stdout)")
        #expect(result.stdout.contains("forged or foreign marks: marks in "), "\(result.stdout)")
        #expect(result.stdout.contains("follow no row's keyed path (drawn without the key, or made with another key)"), "\(result.stdout)")
    }

    /// Without the key the copies' keyed paths are nobody's: the marks are foreign, and the
    /// result says that unkeyed paths can be forged.
    @Test func aKeyedCopyTracedWithoutTheKeyIdentifiesNobody() throws {
        let media = try TraceMedia.shared.get()
        let result = try media.trace(media.leaks[77]!, key: false)
        #expect(result.status == 1, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.identified.isEmpty && !report.keyed)
        #expect(report.warning?.contains("anyone who knows a student's text can compute their path") == true)
        #expect(report.forgery?.message.contains("trace with --key-file") == true, "\(String(describing: report.forgery))")
    }

    /// The same rows under two keys: every row's path differs (positions at 20 slots).
    @Test func twoKeysGiveEveryRowAnotherPath() throws {
        let media = try TraceMedia.shared.get()
        let config = try WatermarkConfig.load(path: media.config, warn: { _ in })
        let keyed = [try KeyedDerivation(key: SecretKey.generate()), try KeyedDerivation(key: SecretKey.generate())].map(config.keyed(with:))
        for student in TraceMedia.students() {
            let variables = ["email": student.email, "id": student.id]
            let paths = try keyed.map { config -> [PixelRect?] in
                let compositor = try Compositor.forJob(config: config, variables: variables, warn: { _ in })
                return try (0..<20).map { slot in
                    try compositor.markRects(at: PresentationTime(milliseconds: Int64(slot) * 5000 + 2500),
                                             storedWidth: TraceMedia.width, storedHeight: TraceMedia.height)[0]
                }
            }
            let same = zip(paths[0], paths[1]).filter { $0 == $1 }.count
            #expect(same <= 2, "\(student.email): \(same) of 20 spots alike under two keys")
        }
    }

    /// A config that gives every row the same path is refused before any video is read.
    @Test func aConfigWithoutARowDependentPathIsRefused() throws {
        let harness = try Harness()
        defer { harness.cleanUp() }
        let config = try harness.write("ping.json", #"{ "watermarks": [ { "text": "{email}", "animation": { "type": "pingPong", "duration": 5000 } } ] }"#)
        let rows = try harness.write("rows.csv", "email\nada@example.com\ngrace@example.com\n")
        let result = try harness.videowm("trace", "leak.mp4", "--original", "lecture.mp4", "-c", config, "--vars", rows)
        #expect(result.status == 64)
        #expect(result.stderr.contains("ping.json: watermarks: every row gets the same mark path"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func aMissingLeakIsExit66() throws {
        let media = try TraceMedia.shared.get()
        let result = try media.harness.videowm("trace", media.harness.path("no-such-leak.mp4"), "--original", media.lecture,
                                               "-c", media.config, "--vars", media.students)
        #expect(result.status == 66)
        #expect(result.stderr.contains("no-such-leak.mp4"))
    }
}

/// The parts of `trace --json` the tests read.
struct TraceReport: Decodable {
    struct Row: Decodable {
        struct Span: Decodable { var startSeconds: Double, endSeconds: Double }
        var row: Int
        var falseMatchProbability: Double
        var explains: [Span]?
    }
    struct Alignment: Decodable {
        struct Crop: Decodable { var left: Double, right: Double, top: Double, bottom: Double }
        struct Picture: Decodable { var x: Double, y: Double, width: Double, height: Double }
        var offsetSeconds: Double
        var crop: Crop
        var picture: Picture
        var leakWidth: Int
        var leakHeight: Int
    }
    struct Forgery: Decodable {
        var message: String
        var unkeyedMatches: [Int]
        var slotsWithMarks: Int
        var slots: Int
    }
    var threshold: Double
    var identified: [Row]
    var ranking: [Row]
    var alignment: Alignment?
    var keyed: Bool
    var forgery: Forgery?
    var warning: String?

    init(_ json: Data) throws { self = try JSONDecoder().decode(Self.self, from: json) }
}

/// The suite's media, made once: the lecture, the config, 200 rows, three leaks and an unmarked one.
final class TraceMedia: @unchecked Sendable {
    static let shared = Result { try TraceMedia() }

    let harness: Harness
    let lecture: String
    let config: String
    let students: String
    /// The platform's key, made with `videowm keygen`.
    let key: String
    let leaks: [Int: String]
    let unmarkedLeak: String
    /// Row 17's address drawn on the clean lecture without the key: "unkeyed" along the path the
    /// config gives without a key, "random" along a path no row has.
    let forgeries: [String: String]

    static let width = 854, height = 480
    static let leakStart = 37.3, leakSeconds = 61.0

    private init() throws {
        harness = try Harness()
        let h = harness
        atexit { try? FileManager.default.removeItem(atPath: TraceMedia.directory ?? "") }
        TraceMedia.directory = h.directory.path
        // 130 s: CollusionTests' switching leak is 120 s from 10 s.
        lecture = try Self.makeLecture(h, seconds: 130)
        config = try h.write("trace.json", #"{ "watermarks": [ { "text": "{email}", "opacity": 0.4, "animation": { "type": "random", "duration": 5000 } } ] }"#)
        let rows = Self.students()
        students = try h.write("students.csv", "email,id\n" + rows.map { "\($0.email),\($0.id)" }.joined(separator: "\n") + "\n")
        // A fixed key (owner-only, as videowm requires), so each run traces the same copies: with
        // a fresh key per run the margins of the weaker leaks changed from run to run.
        key = h.path("platform.key")
        guard FileManager.default.createFile(atPath: key, contents: Data((0..<32).map { UInt8(($0 * 53 + 29) % 256) }),
                                             attributes: [.posixPermissions: 0o600]) else { throw HarnessError.toolFailed("writing \(key)") }
        // Only the leaked rows' copies are made; the others would be identical in every way that matters.
        let leaked = TraceTests.leakedRows.map { rows[$0 - 1] }
        let leakedCSV = try h.write("leaked.csv", "email,id\n" + leaked.map { "\($0.email),\($0.id)" }.joined(separator: "\n") + "\n")
        try FileManager.default.createDirectory(atPath: h.path("marked"), withIntermediateDirectories: true)
        let batch = try h.videowm("batch", lecture, "-c", config, "--vars", leakedCSV, "--output", h.path("marked/{id}.mp4"),
                                  "--key-file", key, "--preset", "ultrafast", "--crf", "18", "-q")
        guard batch.status == 0 else { throw HarnessError.toolFailed("batch: \(batch.stderr)") }

        let compositorConfig = try WatermarkConfig.load(path: config, warn: { _ in })
            .keyed(with: try KeyedDerivation(key: SecretKey.read(fromFile: key)))
        var leaks: [Int: String] = [:]
        for (row, student) in zip(TraceTests.leakedRows, leaked) {
            let compositor = try Compositor.forJob(config: compositorConfig, variables: ["email": student.email, "id": student.id], warn: { _ in })
            let slots = Int(Self.leakStart / 5)...Int((Self.leakStart + Self.leakSeconds) / 5)
            let rects = try slots.map { slot in
                (slot, try compositor.markRects(at: PresentationTime(milliseconds: Int64(slot) * 5000 + 2500),
                                                storedWidth: Self.width, storedHeight: Self.height)[0]!)
            }
            leaks[row] = try Self.makeLeak(h, from: h.path("marked/\(student.id).mp4"), name: "leak-\(row).mp4", blurring: rects)
        }
        self.leaks = leaks
        unmarkedLeak = try Self.makeLeak(h, from: lecture, name: "leak-unmarked.mp4", blurring: [])

        // The forgeries: transcode draws exactly as batch does, here without the key (the
        // unkeyed path) or with a fixed seed (a path of no row), then a plain re-encode.
        let victim = rows[TraceTests.forgedRow - 1]
        let anywhere = try h.write("anywhere.json", #"{ "watermarks": [ { "text": "{email}", "opacity": 0.4, "animation": { "type": "random", "duration": 5000, "seed": "a forger's" } } ] }"#)
        var forgeries: [String: String] = [:]
        for (name, forgerConfig) in [("unkeyed", config), ("random", anywhere)] {
            let drawn = h.path("forged-\(name)-drawn.mp4")
            let transcode = try h.videowm("transcode", lecture, drawn, "-c", forgerConfig, "--var", "email=\(victim.email)",
                                          "--preset", "ultrafast", "--crf", "18", "-q")
            guard transcode.status == 0 else { throw HarnessError.toolFailed("transcode: \(transcode.stderr)") }
            try h.ffmpeg(["-ss", "\(Self.leakStart)", "-t", "\(Self.leakSeconds)", "-i", drawn, "-an", "-c:v", "libx264", "-preset", "ultrafast",
                          "-crf", "30", h.path("forged-\(name).mp4")])
            forgeries[name] = h.path("forged-\(name).mp4")
        }
        self.forgeries = forgeries
    }

    nonisolated(unsafe) static var directory: String?

    func trace(_ leak: String, key: Bool = true, json: Bool = true) throws -> Harness.Result {
        try harness.videowm(arguments: ["trace", leak, "--original", lecture, "-c", config, "--vars", students, "--top", "3"]
                            + (key ? ["--key-file", self.key] : []) + (json ? ["--json"] : []))
    }

    /// 200 made-up students, the same every run.
    /// `count` made-up students (200 by default), the same every run, every address its own.
    static func students(count: Int = 200) -> [(email: String, id: String)] {
        var random = SplitMix64(seed: 2024)
        let first = ["ada", "grace", "alan", "zoe", "linus", "barbara", "edsger", "donald", "margaret", "ken", "radia", "frances"]
        let last = ["lovelace", "hopper", "turing", "mueller", "torvalds", "liskov", "dijkstra", "knuth", "hamilton", "perlman"]
        return (1...count).map { n in
            ("\(first[random.below(first.count)]).\(last[random.below(last.count)])\(n)@example.edu", "\(1000 + n)")
        }
    }

    /// A slide lecture at 854×480, 24 fps (100 s unless told): a title bar whose part number changes every 15 s,
    /// bullets whose lengths change with it, a moving test-pattern "demo" and a seconds counter.
    static func makeLecture(_ h: Harness, name: String = "lecture.mp4", rate: Int = 24, seconds: Int = 100) throws -> String {
        let bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        let slide = [
            "drawbox=x=0:y=0:w=iw:h=70:color=0x1F3A5F:t=fill",
            "drawtext=fontfile=\(bold):text='Lecture 3 — Signals and Systems, part %{eif\\:1+floor(t/15)\\:d}':fontsize=30:fontcolor=white:x=26:y=20",
            "drawbox=x=44:y=125:w=14:h=14:color=0x1F3A5F:t=fill",
            "drawbox=x=70:y=126:w='180+90*mod(floor(t/15),3)':h=11:color=0x8090A0:t=fill",
            "drawbox=x=44:y=178:w=14:h=14:color=0x1F3A5F:t=fill",
            "drawbox=x=70:y=180:w='340-50*mod(floor(t/15),4)':h=11:color=0x8090A0:t=fill",
            "drawbox=x=44:y=231:w=14:h=14:color=0x1F3A5F:t=fill",
            "drawbox=x=70:y=233:w=270:h=11:color=0x8090A0:t=fill",
            "drawbox=x=0:y=ih-36:w=iw:h=36:color=0xD8DEE6:t=fill",
            "drawtext=fontfile=\(font):text='%{eif\\:floor(t)\\:d} s':fontsize=18:fontcolor=0x1F3A5F:x=w-tw-26:y=h-27",
        ].joined(separator: ",")
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0xF4F1EA:s=\(width)x\(height):r=\(rate):d=\(seconds)",
                      "-f", "lavfi", "-i", "testsrc2=s=356x266:r=\(rate):d=\(seconds)",
                      "-filter_complex", "[0:v]\(slide)[bg];[1:v]drawbox=x=0:y=0:w=iw:h=ih:color=0x1F3A5F:t=4[demo];"
                        + "[bg][demo]overlay=x='462+18*sin(t/7)':y='134+9*sin(t/5)':shortest=1,format=yuv420p[v]",
                      "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", h.path(name)])
        return h.path(name)
    }

    /// The leak of `source`: 61 s from 37.3 s, each slot's mark rectangle (padded by 6 px)
    /// blurred (Gaussian, σ 8 px) while that slot shows, cropped 8% left and 5% top, scaled to
    /// 640×360, 25 fps, x264 at CRF 35.
    static func makeLeak(_ h: Harness, from source: String, name: String, blurring rects: [(slot: Int, rect: PixelRect)]) throws -> String {
        var chains: [String] = []
        var current = "0:v"
        for (slot, rect) in rects {
            let from = max(0, Double(slot) * 5 - leakStart), to = Double(slot + 1) * 5 - leakStart
            let x0 = max(0, rect.x - 6), y0 = max(0, rect.y - 6)
            let w = (min(width, rect.maxX + 6) - x0) / 2 * 2, hgt = (min(height, rect.maxY + 6) - y0) / 2 * 2
            chains.append("[\(current)]split[m\(slot)][c\(slot)];[c\(slot)]crop=\(w):\(hgt):\(x0):\(y0),gblur=sigma=8[b\(slot)];"
                          + "[m\(slot)][b\(slot)]overlay=\(x0):\(y0):enable='between(t,\(from),\(to))'[o\(slot)]")
            current = "o\(slot)"
        }
        chains.append("[\(current)]crop=iw*0.92:ih*0.95:iw*0.08:ih*0.05,scale=640:360,fps=25,format=yuv420p[v]")
        try h.ffmpeg(["-ss", "\(leakStart)", "-t", "\(leakSeconds)", "-i", source, "-filter_complex", chains.joined(separator: ";"),
                      "-map", "[v]", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "35", h.path(name)])
        return h.path(name)
    }
}
