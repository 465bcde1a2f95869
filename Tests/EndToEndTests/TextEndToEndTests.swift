import Foundation
import Testing

/// Issue 15's "done when", through the built binary: shaped and reordered scripts, colour emoji,
/// long e-mails that wrap before they shrink, font patterns, and the per-frame {timecode}, judged
/// by the pixels of `stamp` and `transcode` outputs (and against HarfBuzz's own hb-view).
@Suite("text end to end")
struct TextEndToEndTests {
    static let dejaVuSans = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    /// DejaVu Sans: cap height 1493 of 2048 units per em.
    static let dejaVuCapPerEm = 1493.0 / 2048.0

    /// A picture as 8-bit samples (gray: one per pixel; rgb: three).
    struct Picture {
        var width: Int
        var height: Int
        var channels: Int
        var samples: [UInt8]

        func value(_ x: Int, _ y: Int, _ c: Int = 0) -> UInt8 { samples[(y * width + x) * channels + c] }

        /// The rectangle of pixels brighter than `threshold` (gray pictures).
        func ink(threshold: UInt8 = 128, in region: (x: Range<Int>, y: Range<Int>)? = nil) -> (x: Range<Int>, y: Range<Int>)? {
            let xs = region?.x ?? 0..<width, ys = region?.y ?? 0..<height
            var minX = Int.max, maxX = -1, minY = Int.max, maxY = -1
            for y in ys { for x in xs where value(x, y) > threshold { minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y) } }
            return maxX < 0 ? nil : (minX..<(maxX + 1), minY..<(maxY + 1))
        }

        /// Connected shapes (8-neighbourhood) of pixels brighter than `threshold`, largest box first.
        func components(threshold: UInt8 = 128) -> [(x: Range<Int>, y: Range<Int>)] {
            var seen = [Bool](repeating: false, count: width * height)
            var found: [(x: Range<Int>, y: Range<Int>)] = []
            for start in 0..<(width * height) where !seen[start] && samples[start * channels] > threshold {
                var stack = [start], minX = Int.max, maxX = 0, minY = Int.max, maxY = 0
                seen[start] = true
                while let i = stack.popLast() {
                    let x = i % width, y = i / width
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    for dy in -1...1 { for dx in -1...1 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < width, ny < height else { continue }
                        let n = ny * width + nx
                        if !seen[n] && samples[n * channels] > threshold { seen[n] = true; stack.append(n) }
                    } }
                }
                found.append((minX..<(maxX + 1), minY..<(maxY + 1)))
            }
            return found
        }

        /// How much of the ink of two pictures agrees, each taken from the top-left corner of its
        /// own ink box (so renders at different places compare): the share of the ink pixels of
        /// either that have ink of the other within one pixel. Two rasterisers place a glyph at
        /// different subpixel offsets, which moves thin strokes by a pixel; a wrong shape, order
        /// or direction moves whole letters.
        func inkAgreement(with other: Picture, threshold: UInt8 = 128) -> Double {
            guard let a = ink(threshold: threshold), let b = other.ink(threshold: threshold) else { return 0 }
            func inked(_ p: Picture, _ box: (x: Range<Int>, y: Range<Int>), _ x: Int, _ y: Int) -> Bool {
                x >= 0 && y >= 0 && x < box.x.count && y < box.y.count && p.value(box.x.lowerBound + x, box.y.lowerBound + y) > threshold
            }
            var matched = 0, total = 0
            for (p, pBox, q, qBox) in [(self, a, other, b), (other, b, self, a)] {
                for y in 0..<pBox.y.count {
                    for x in 0..<pBox.x.count where inked(p, pBox, x, y) {
                        total += 1
                        if (-1...1).contains(where: { dy in (-1...1).contains { dx in inked(q, qBox, x + dx, y + dy) } }) { matched += 1 }
                    }
                }
            }
            return Double(matched) / Double(max(total, 1))
        }
    }

    /// Reads an image (or the first video frame after `at` seconds) as gray or RGB samples.
    static func read(_ h: Harness, _ file: String, rgb: Bool = false, frame: Int? = nil) throws -> Picture {
        let size = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", file])
            .split(separator: "\n")[0].split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        var arguments = ["-v", "error", "-i", file]
        if let frame { arguments += ["-vf", "select=eq(n\\,\(frame))"] }
        arguments += ["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", rgb ? "rgb24" : "gray", "-"]
        let r = try h.run("ffmpeg", arguments)
        guard r.status == 0, size.count == 2 else { throw HarnessError.toolFailed(r.stderr) }
        return Picture(width: size[0], height: size[1], channels: rgb ? 3 : 1, samples: [UInt8](r.stdoutData))
    }

    /// A still of one colour.
    static func plain(_ h: Harness, _ name: String, width: Int, height: Int, color: String = "black") throws -> String {
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=\(color):size=\(width)x\(height)", "-frames:v", "1", h.path(name)])
        return h.path(name)
    }

    /// A layer's JSON for `text` in white, fully opaque, `size` of the short side.
    static func layer(_ text: String, size: Double = 0.12, anchor: String = "center", extra: String = "") -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return #"{ "text": "\#(escaped)", "size": \#(size), "opacity": 1, "anchor": "\#(anchor)"\#(extra) }"#
    }

    /// Stamps `layers` on `input` and reads the result.
    static func stamp(_ h: Harness, _ input: String, _ layers: [String], name: String, rgb: Bool = false,
                      arguments: [String] = []) throws -> (picture: Picture, result: Harness.Result) {
        let config = try h.write("\(name).json", #"{ "watermarks": [ \#(layers.joined(separator: ", ")) ] }"#)
        let output = h.path("\(name).png")
        let result = try h.videowm(arguments: ["stamp", input, "-o", output, "-c", config, "-y"] + arguments)
        #expect(result.status == 0, "\(name): \(result.stderr)")
        return (try read(h, output, rgb: rgb), result)
    }

    /// hb-view's rendering of `text` with `font` at an em of `emPixels`, white on black.
    static func hbView(_ h: Harness, _ text: String, font: String, emPixels: Double, name: String) throws -> Picture {
        let output = h.path("\(name)-hb.png")
        let r = try h.run("hb-view", ["--font-size=\(emPixels)", "--margin=16", "--background=#000000", "--foreground=#FFFFFF",
                                      "-O", "png", "-o", output, font, text])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        return try read(h, output)
    }

    // MARK: Shaping and bidi

    @Test func arabicNameIsOneConnectedShapeInStillsAndVideo() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: 640, height: 360)
        #expect(try Self.stamp(h, black, [Self.layer("محمد")], name: "joined").picture.components().count == 1)
        // The measure can tell: the same letters apart are four shapes.
        #expect(try Self.stamp(h, black, [Self.layer("م ح م د")], name: "apart").picture.components().count == 4)

        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=black:size=640x360:rate=25:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", h.path("black.mp4")])
        let config = try h.write("video.json", #"{ "watermarks": [ \#(Self.layer("محمد")) ] }"#)
        let r = try h.videowm("transcode", h.path("black.mp4"), h.path("marked.mp4"), "-c", config, "--crf", "0", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.read(h, h.path("marked.mp4"), frame: 12).components().count == 1)
    }

    @Test(arguments: ["שלום", "محمد"])
    func rightToLeftWordsAreDrawnAsHarfBuzzShapesThem(word: String) throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: 640, height: 360)
        let ours = try Self.stamp(h, black, [Self.layer(word, extra: #", "font": "\#(Self.dejaVuSans)""#)], name: "word").picture
        let theirs = try Self.hbView(h, word, font: Self.dejaVuSans, emPixels: 0.12 * 360 / Self.dejaVuCapPerEm, name: "word")
        let overlap = ours.inkAgreement(with: theirs)
        #expect(overlap > 0.97, "\(word): ink agreement with hb-view \(overlap)")
        // Drawn in typed order, left to right, the word would not match.
        let reversed = String(word.reversed())
        let wrongWay = try Self.hbView(h, "\u{202D}" + reversed + "\u{202C}", font: Self.dejaVuSans, emPixels: 0.12 * 360 / Self.dejaVuCapPerEm, name: "ltr")
        let wrongAgreement = ours.inkAgreement(with: wrongWay)
        #expect(wrongAgreement < overlap - 0.2, "\(word): agreement with the letters left to right \(wrongAgreement)")
    }

    @Test func anEmailBesideAnArabicNameKeepsItsOrder() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: 640, height: 360)
        let mixed = try Self.stamp(h, black, [Self.layer("محمد — ada@example.com", size: 0.06)], name: "mixed").picture
        let email = try Self.stamp(h, black, [Self.layer("ada@example.com", size: 0.06)], name: "email").picture
        // A right-to-left line: the address is at its left end, drawn as it is alone.
        let mixedInk = try #require(mixed.ink()), emailInk = try #require(email.ink())
        let left = Picture(width: emailInk.x.count, height: mixed.height, channels: 1, samples: (0..<mixed.height).flatMap { y in
            (0..<emailInk.x.count).map { x in mixed.value(mixedInk.x.lowerBound + x, y) }
        })
        let overlap = left.inkAgreement(with: email)
        #expect(overlap > 0.97, "the left end of the mixed line matches the address alone in \(overlap) of the ink")
    }

    @Test func devanagariNameMatchesHbViewsInkWidth() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: 640, height: 360)
        let name = "श्रीमती क्षमा"
        let ours = try #require(try Self.stamp(h, black, [Self.layer(name)], name: "deva").picture.ink())
        // The fallback for Devanagari beside DejaVu Sans, at the em size DejaVu's capitals set.
        let font = "/usr/share/fonts/truetype/noto/NotoSansDevanagari-Regular.ttf"
        let theirs = try #require(try Self.hbView(h, name, font: font, emPixels: 0.12 * 360 / Self.dejaVuCapPerEm, name: "deva").ink())
        let relative = abs(Double(ours.x.count - theirs.x.count)) / Double(theirs.x.count)
        #expect(relative <= 0.05, "ink width \(ours.x.count) px, hb-view \(theirs.x.count) px")
    }

    // MARK: Emoji

    @Test func emojiAreDrawnInColourInStillsAndVideo() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let gray = try Self.plain(h, "gray.png", width: 640, height: 360, color: "0x404040")
        let stamped = try Self.stamp(h, gray, [Self.layer("🎓 ada")], name: "emoji", rgb: true).picture
        /// Saturated pixels left and right of `split`, and near-white ones left of it.
        func counts(_ picture: Picture, split: Int) -> (left: Int, right: Int, whiteLeft: Int) {
            var counts = (left: 0, right: 0, whiteLeft: 0)
            for y in 0..<picture.height {
                for x in 0..<picture.width {
                    let r = Int(picture.value(x, y, 0)), g = Int(picture.value(x, y, 1)), b = Int(picture.value(x, y, 2))
                    if x < split && min(r, g, b) > 200 { counts.whiteLeft += 1 }
                    guard max(r, g, b) - min(r, g, b) > 80 else { continue }
                    if x < split { counts.left += 1 } else { counts.right += 1 }
                }
            }
            return counts
        }
        // The emoji is the left part of the centred mark; "ada" in white has no colour. Noto's
        // mortarboard is grey with a yellow tassel, about 280 saturated pixels at this size; an
        // outline or a missing-glyph box in the text's white would have none, and white pixels.
        let still = counts(stamped, split: 320 - 20)
        #expect(still.left > 150 && still.right == 0 && still.whiteLeft == 0, "\(still)")

        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0x404040:size=640x360:rate=25:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", h.path("gray.mp4")])
        let config = try h.write("video.json", #"{ "watermarks": [ \#(Self.layer("🎓 ada")) ] }"#)
        let r = try h.videowm("transcode", h.path("gray.mp4"), h.path("marked.mp4"), "-c", config, "--crf", "0", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        let video = counts(try Self.read(h, h.path("marked.mp4"), rgb: true, frame: 5), split: 320 - 20)
        #expect(video.left > 150 && video.whiteLeft == 0, "\(video)")
    }

    // MARK: Long text

    /// 60 characters, with a capital to measure the cap height by.
    static let email = "Alexandra.konstantinopoulou-smythe2024@students.example.edu."

    @Test(arguments: [(360, 640), (640, 360)])
    func aLongEmailWrapsBeforeItShrinksPastLegibility(width: Int, height: Int) throws {
        #expect(Self.email.count == 60)
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: width, height: height)
        let (picture, result) = try Self.stamp(h, black, [Self.layer(Self.email, size: 0.04)], name: "long")
        #expect(!result.stderr.contains("shrunk"), "\(result.stderr)")
        let floor = max(0.025 * Double(min(width, height)), 9)
        // Lines: bands of rows with ink, separated by empty rows.
        var bands: [Range<Int>] = [], start: Int?
        for y in 0...picture.height {
            let inked = y < picture.height && (0..<picture.width).contains { picture.value($0, y) > 128 }
            if inked, start == nil { start = y }
            if !inked, let s = start { bands.append(s..<y); start = nil }
        }
        #expect(bands.count == (width < height ? 2 : 1), "\(bands)")
        // The capital A, the leftmost shape of the first line, is as tall as the capitals.
        let a = try #require(picture.components().filter { bands.first!.contains($0.y.lowerBound) }.min { $0.x.lowerBound < $1.x.lowerBound })
        #expect(Double(a.y.count) >= floor - 0.5, "cap height \(a.y.count) px, floor \(floor) px")
        let ink = try #require(picture.ink())
        let inset = Int(0.03 * Double(min(width, height)))
        #expect(ink.x.lowerBound >= inset - 1 && ink.x.upperBound <= width - inset + 1 && ink.y.lowerBound >= inset - 1
                && ink.y.upperBound <= height - inset + 4, "ink \(ink) in \(width)×\(height)")

        // With one line allowed it has to shrink past the floor, and says so naming the layer.
        let (_, squeezed) = try Self.stamp(h, black, [Self.layer(Self.email, size: 0.04, extra: #", "maxLines": 1"#)], name: "one")
        if width < height {
            #expect(squeezed.stderr.contains("one.json: watermarks[0]: text is shrunk to a cap height of"), "\(squeezed.stderr)")
        }
    }

    // MARK: Fonts

    @Test func fontPatternsPickTheFaceAndUnknownFamiliesWarn() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: 640, height: 360)
        let byPattern = try Self.stamp(h, black, [Self.layer("Ada", extra: #", "font": "DejaVu Serif:bold""#)], name: "pattern")
        let byFile = try Self.stamp(h, black, [Self.layer("Ada", extra: #", "font": "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf""#)], name: "file")
        #expect(byPattern.picture.samples == byFile.picture.samples)
        #expect(byPattern.result.stderr.isEmpty)
        let byFields = try Self.stamp(h, black, [Self.layer("Ada", extra: #", "font": "DejaVu Serif", "weight": "bold""#)], name: "fields")
        #expect(byFields.picture.samples == byFile.picture.samples)

        let unknown = try Self.stamp(h, black, [Self.layer("Ada", extra: #", "font": "No Such Family""#)], name: "unknown")
        #expect(unknown.result.stderr.contains("font family 'No Such Family' not found; using 'DejaVu Sans'"), "\(unknown.result.stderr)")
        // A property fontconfig would ignore is a config error naming the field.
        let config = try h.write("bad.json", #"{ "watermarks": [ \#(Self.layer("Ada", extra: #", "font": "DejaVu Serif:bolt""#)) ] }"#)
        let bad = try h.videowm("stamp", black, "-o", h.path("bad.png"), "-c", config)
        #expect(bad.status == 64 && bad.stderr.contains("watermarks[0].font") && bad.stderr.contains("'bolt'"), "\(bad.stderr)")
    }

    // MARK: Tokens

    /// A 29.97 fps clip of one colour, optionally with a start timecode.
    static func ntscClip(_ h: Harness, _ name: String, startTimecode: String? = nil) throws -> String {
        var arguments = ["-f", "lavfi", "-i", "color=c=0x203040:size=320x180:rate=30000/1001:duration=1.5",
                         "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
        if let startTimecode { arguments += ["-timecode", startTimecode] }
        try h.ffmpeg(arguments + [h.path(name)])
        return h.path(name)
    }

    /// Transcodes `input` losslessly with one timecode-sized text layer and reads frame `frame`.
    static func markedFrame(_ h: Harness, _ input: String, text: String, frame: Int, name: String) throws -> Picture {
        let config = try h.write("\(name).json", #"{ "watermarks": [ \#(Self.layer(text, size: 0.1, anchor: "top-left")) ] }"#)
        let r = try h.videowm("transcode", input, h.path("\(name).mp4"), "-c", config, "--crf", "0", "--preset", "ultrafast")
        #expect(r.status == 0, "\(r.stderr)")
        return try read(h, h.path("\(name).mp4"), frame: frame)
    }

    @Test func timecodeReadsDropFrameAtTheFrameShownAt1001Milliseconds() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try Self.ntscClip(h, "ntsc.mp4")
        // Frame 30 is shown at 1.001 s.
        #expect(try h.videoFrameTimes(clip)[30] == "1.001000")
        let live = try Self.markedFrame(h, clip, text: "{timecode}", frame: 30, name: "live")
        #expect(live.samples == (try Self.markedFrame(h, clip, text: "00:00:01;00", frame: 30, name: "expected")).samples)
        // The comparison can fail: a non-drop separator or the next frame's label differ.
        #expect(live.samples != (try Self.markedFrame(h, clip, text: "00:00:01:00", frame: 30, name: "colon")).samples)
        #expect(live.samples != (try Self.markedFrame(h, clip, text: "00:00:01;01", frame: 30, name: "next")).samples)
    }

    @Test func timecodeStartsFromTheInputsTimecodeTag() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let clip = try Self.ntscClip(h, "tagged.mp4", startTimecode: "01:00:00;00")
        let live = try Self.markedFrame(h, clip, text: "{timecode}", frame: 2, name: "live")
        #expect(live.samples == (try Self.markedFrame(h, clip, text: "01:00:00;02", frame: 2, name: "expected")).samples)
        // The thumbnail marks the frame as transcode does.
        let config = try h.write("thumb.json", #"{ "watermarks": [ \#(Self.layer("{timecode}", size: 0.1, anchor: "top-left")) ] }"#)
        let fixed = try h.write("fixed.json", #"{ "watermarks": [ \#(Self.layer("01:00:01;00", size: 0.1, anchor: "top-left")) ] }"#)
        #expect(try h.videowm("thumbnail", clip, h.path("a.png"), "--at", "1.001", "-c", config).status == 0)
        #expect(try h.videowm("thumbnail", clip, h.path("b.png"), "--at", "1.001", "-c", fixed).status == 0)
        #expect(try Self.read(h, h.path("a.png")).samples == Self.read(h, h.path("b.png")).samples)
    }

    @Test func ptsDateAndTimeAreFilledAndDateCanBeFixed() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let black = try Self.plain(h, "black.png", width: 640, height: 360)
        let pts = try Self.stamp(h, black, [Self.layer("{pts} s", size: 0.06)], name: "pts", arguments: ["--at", "1.5"]).picture
        #expect(pts.samples == (try Self.stamp(h, black, [Self.layer("1.500 s", size: 0.06)], name: "pts-literal").picture).samples)
        let dated = try Self.stamp(h, black, [Self.layer("{date} {time}", size: 0.06)], name: "date",
                                   arguments: ["--var", "date=2024-05-01", "--var", "time=09:00:00"]).picture
        #expect(dated.samples == (try Self.stamp(h, black, [Self.layer("2024-05-01 09:00:00", size: 0.06)], name: "date-literal").picture).samples)
        // Without --var, today's local date is drawn, as Foundation's calendar has it (the job reads
        // it from the C library): the same pixels as the literal date of before or after the run.
        func today() -> String {
            let parts = Calendar.current.dateComponents([.year, .month, .day], from: Date())
            return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
        }
        let before = today()
        let drawn = try Self.stamp(h, black, [Self.layer("{date}", size: 0.06)], name: "today").picture
        let after = today()
        #expect(drawn.ink() != nil)
        let literal = try Self.stamp(h, black, [Self.layer(before, size: 0.06)], name: "today-literal").picture
        if drawn.samples != literal.samples {
            #expect(after != before, "{date} is not today's local date \(before)")
            #expect(drawn.samples == (try Self.stamp(h, black, [Self.layer(after, size: 0.06)], name: "today-after").picture).samples)
        }
    }
}
