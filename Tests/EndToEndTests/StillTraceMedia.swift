import Animation
import Foundation
import Overlay
import TestSupport
import VideoWM

/// The still-trace suite's media, made once: a 30-s 720p lecture with moving content (slides
/// that change every 6 s, light and dark, a pointer, a speaker inset), a course's config, a class
/// of 300 rows and the platform's key; then the pictures people post, built from the leaked
/// row's marked frame at an instant the seed picks: a screenshot of the player in a 1920×1080
/// desktop, a phone photo of the screen, a crop around the mark; and pictures that must name
/// nobody: the frame unmarked, a classmate's address typed on it in the course's style, the
/// frame marked with another platform's key. Positions, sizes, times and rows vary with the
/// seed, printed with every failure: `defaultSeed` unless `VIDEOWM_TEST_SEED` names one
/// (`random` for a new one each run). The suite is a gate, so it runs one known picture set;
/// how often a picture names its row over many seeds is measured by bench/still_trace_bench.py.
final class StillTraceMedia: @unchecked Sendable {
    static let shared = Result { try StillTraceMedia() }
    static let width = 1280, height = 720, seconds = 30
    static let defaultSeed: UInt64 = 20_261_207

    let harness: Harness
    let seed: UInt64
    let lecture: String
    let config: String
    let students: String
    let key: String
    /// The leaked row (1-based) and the instant its frame shows.
    let row: Int
    let time: Double
    /// The classmate whose address the forger typed.
    let victim: Int
    let screenshot: String
    let photo: String
    let crop: String
    let unmarked: String
    let forgery: String
    let foreign: String
    /// The phone photo's JPEG quality, estimated from its quantisation table.
    let photoQuality: Double

    private init() throws {
        harness = try Harness()
        let h = harness
        // VIDEOWM_TEST_KEEP keeps the pictures to look at after a failure.
        if ProcessInfo.processInfo.environment["VIDEOWM_TEST_KEEP"] == nil {
            atexit { try? FileManager.default.removeItem(atPath: StillTraceMedia.directory ?? "") }
        }
        StillTraceMedia.directory = h.directory.path
        switch ProcessInfo.processInfo.environment["VIDEOWM_TEST_SEED"] {
        case "random": seed = UInt64.random(in: 1...UInt64(1) << 40)
        case let named?: seed = UInt64(named) ?? Self.defaultSeed
        case nil: seed = Self.defaultSeed
        }
        var random = SplitMix64(seed: seed)
        lecture = try Self.makeLecture(h)
        config = try h.write("course.json", """
            { "watermarks": [ { "text": "{email}", "size": 0.04, "opacity": 0.55, "color": "#FFFFFF",
                "shadow": { "x": 0.002, "y": 0.002, "blur": 0.002, "color": "#000000" },
                "animation": { "type": "random", "duration": 5000 } } ] }
            """)
        let rows = TraceMedia.students(count: 300)
        students = try h.write("students.csv", "email,id\n" + rows.map { "\($0.email),\($0.id)" }.joined(separator: "\n") + "\n")
        key = h.path("platform.key")
        guard FileManager.default.createFile(atPath: key, contents: Data((0..<32).map { UInt8(($0 * 41 + 7) % 256) }),
                                             attributes: [.posixPermissions: 0o600]) else { throw HarnessError.toolFailed("writing \(key)") }
        let otherKey = h.path("other-platform.key")
        guard FileManager.default.createFile(atPath: otherKey, contents: Data((0..<32).map { UInt8(($0 * 97 + 13) % 256) }),
                                             attributes: [.posixPermissions: 0o600]) else { throw HarnessError.toolFailed("writing \(otherKey)") }
        row = 1 + random.below(rows.count)
        victim = (row + 1 + random.below(rows.count - 1) - 1) % rows.count + 1
        time = 0.5 + Double(random.below(2900)) / 100
        let student = rows[row - 1]
        let leaked = ["--var", "email=\(student.email)", "--var", "id=\(student.id)"]

        // The leaked row's frame, marked as its copy was (thumbnail marks as transcode does) and
        // compressed as its copy was.
        let marked = try Self.markedFrame(h, lecture: lecture, at: time, config: config, variables: leaked, key: key, name: "marked")
        let foreignFrame = try Self.markedFrame(h, lecture: lecture, at: time, config: config, variables: leaked, key: otherKey, name: "foreign")
        let none = try h.write("none.json", #"{ "watermarks": [ { "text": "x", "opacity": 0 } ] }"#)
        let clean = try Self.markedFrame(h, lecture: lecture, at: time, config: none, variables: [], key: nil, name: "clean")
        // The forger types a classmate's address in the course's style where they like.
        let forger = try h.write("forger.json", """
            { "watermarks": [ { "text": "{email}", "size": 0.04, "opacity": 0.55, "color": "#FFFFFF", "x": \(random.below(101)), "y": \(random.below(101)),
                "shadow": { "x": 0.002, "y": 0.002, "blur": 0.002, "color": "#000000" } } ] }
            """)
        let typed = h.path("typed.png")
        let stamp = try h.videowm("stamp", clean, "-o", typed, "-c", forger, "--var", "email=\(rows[victim - 1].email)", "-y")
        guard stamp.status == 0 else { throw HarnessError.toolFailed("stamp: \(stamp.stderr)") }

        let compositor = try Compositor.forJob(config: WatermarkConfig.load(path: config, warn: { _ in })
                                                   .keyed(with: KeyedDerivation(key: SecretKey.read(fromFile: key))),
                                               variables: ["email": student.email, "id": student.id], warn: { _ in })
        let instant = time
        guard let mark = try compositor.markRects(at: PresentationTime(milliseconds: Int64((instant * 1000).rounded())),
                                                  storedWidth: Self.width, storedHeight: Self.height)[0] else {
            throw HarnessError.toolFailed("no mark at \(instant) s")
        }
        var pictures = StillPictures(harness: h, random: random)
        screenshot = try pictures.screenshot(of: marked, name: "posted-screenshot.png", at: time, mark: mark)
        unmarked = try pictures.screenshot(of: clean, name: "posted-unmarked.png", at: time)
        forgery = try pictures.screenshot(of: typed, name: "posted-forgery.png", at: time)
        foreign = try pictures.screenshot(of: foreignFrame, name: "posted-foreign.png", at: time)
        (photo, photoQuality) = try pictures.phonePhoto(of: marked, name: "photo.jpg")
        crop = try pictures.crop(of: marked, around: mark, name: "crop.jpg")
    }

    nonisolated(unsafe) static var directory: String?

    /// Said with every failure: the seed reproduces the run.
    var context: String { "seed \(seed) (VIDEOWM_TEST_SEED=\(seed) to repeat, in \(harness.directory.path)): row \(row) at \(time) s, forged row \(victim)" }

    func trace(_ picture: String) throws -> Harness.Result {
        try harness.videowm(arguments: ["trace", picture, "--original", lecture, "-c", config, "--vars", students, "--key-file", key,
                                        "--top", "3", "--json"])
    }

    /// The frame shown at `time`, marked by `config` (with `key`), then through x264 at CRF 23 as a copy's frame is.
    static func markedFrame(_ h: Harness, lecture: String, at time: Double, config: String, variables: [String], key: String?,
                            name: String) throws -> String {
        let still = h.path("\(name)-thumbnail.png")
        let made = try h.videowm(arguments: ["thumbnail", lecture, still, "--at", String(time), "-c", config, "-y"] + variables
                                 + (key.map { ["--key-file", $0] } ?? []))
        guard made.status == 0 else { throw HarnessError.toolFailed("thumbnail: \(made.stderr)") }
        try h.ffmpeg(["-i", still, "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", h.path("\(name).mp4")])
        try h.ffmpeg(["-i", h.path("\(name).mp4"), "-frames:v", "1", h.path("\(name).png")])
        return h.path("\(name).png")
    }

    /// Slides every 6 s, light and dark in turn, full of text (a title with the slide's number,
    /// bullets whose text changes, a figure, a footer); a red pointer moving over them; a speaker
    /// inset (a moving test pattern) at the bottom right. x264, CRF 20.
    static func makeLecture(_ h: Harness) throws -> String {
        let bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        let slide = "1+floor(t/6)"
        var filters = ["drawbox=x=0:y=0:w=iw:h=ih:color=0x1F3A5F:t=fill:enable='lt(mod(t,12),6)'",
                       "drawbox=x=0:y=0:w=iw:h=86:color=0x2B4C7E:t=fill",
                       "drawtext=fontfile=\(bold):text='Lecture 3 — Signals and Systems, slide %{eif\\:\(slide)\\:d}':fontsize=36:fontcolor=white:x=36:y=24"]
        let bullets = ["Sampling theorem, case %{eif\\:3*\(slide)+1\\:d}", "Aliasing and anti-aliasing filters (%{eif\\:7*\(slide)+2\\:d} Hz)",
                       "Fourier series of a square wave, %{eif\\:2*\(slide)+1\\:d} terms", "Convolution as a sum of shifted impulses",
                       "Exercise %{eif\\:\(slide)+10\\:d}, the spectrum of x(n) = 0.5^n u(n)"]
        for (index, bullet) in bullets.enumerated() {
            filters.append("drawtext=fontfile=\(font):text='• \(bullet)':fontsize=28:fontcolor=0x8F9BAA:x=56:y=\(130 + index * 62)")
        }
        filters.append("drawbox=x=820:y=130:w=360:h=260:color=0x8F9BAA:t=3")
        for line in 1..<6 { filters.append("drawbox=x=\(820 + line * 60):y=130:w=1:h=260:color=0x8F9BAA:t=fill") }
        filters.append("drawbox=x=830:y='250-60*mod(floor(t/6),3)':w=340:h=3:color=0xC05030:t=fill")
        filters += [
                    "drawtext=fontfile=\(font):text='|H(f)|, slide %{eif\\:\(slide)\\:d}':fontsize=22:fontcolor=0xC05030:x=860:y=400",
                    "drawbox=x=0:y=ih-40:w=iw:h=40:color=0xD8DEE6:t=fill",
                    "drawtext=fontfile=\(font):text='EE 204 · Signals and Systems · page %{eif\\:\(slide)+40\\:d}':fontsize=20:fontcolor=0x1F3A5F:x=36:y=h-30"]
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0xF4F1EA:s=\(width)x\(height):r=25:d=\(seconds)",
                      "-f", "lavfi", "-i", "testsrc2=s=240x180:r=25:d=\(seconds)", "-f", "lavfi", "-i", "color=c=red:s=14x14:r=25:d=\(seconds)",
                      "-filter_complex", "[0:v]\(filters.joined(separator: ","))[slides];[1:v]drawbox=x=0:y=0:w=iw:h=ih:color=0x222222:t=3[speaker];"
                        + "[slides][speaker]overlay=x=W-w-24:y=H-h-56[with];"
                        + "[with][2:v]overlay=x='420+330*sin(t*0.9)':y='330+180*cos(t*0.7)',format=yuv420p[v]",
                      "-map", "[v]", "-c:v", "libx264", "-preset", "veryfast", "-crf", "20", h.path("lecture.mp4")])
        return h.path("lecture.mp4")
    }
}
