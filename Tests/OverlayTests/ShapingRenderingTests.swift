import Foundation
import TestSupport
import Testing
@testable import Overlay

/// Complex scripts, bidi and colour emoji, judged by the pixels drawn and against HarfBuzz's
/// own command-line shaper (hb-shape, hb-view from libharfbuzz-bin).
@Suite struct ShapingRenderingTests {
    let fonts: FontLibrary

    init() throws { fonts = try FontLibrary() }

    private func render(_ text: String, cap: Double = 48, color: RGBAColor = .white,
                        outline: TextOutline? = nil) throws -> RenderedText {
        try fonts.render(TextStyle(text: text, capHeightPixels: cap, color: color, outline: outline))
    }

    /// The glyphs of one unwrapped line, left to right, and the faces they come from.
    private func shapedLine(_ text: String) throws -> (glyphs: [LineGlyph], paragraph: ItemizedParagraph) {
        let (primary, _) = try fonts.primaryFace(for: .family(FontLibrary.defaultFamily))
        var missing: [Unicode.Scalar] = []
        let paragraph = fonts.itemize(Array(text.unicodeScalars), primary: primary, missing: &missing)
        #expect(missing.isEmpty)
        return (fonts.shapeLine(paragraph, range: 0..<paragraph.scalars.count), paragraph)
    }

    /// Connected shapes of the ink (8-neighbourhood, alpha at least `threshold`).
    static func connectedComponents(_ image: PremultipliedRGBAImage, threshold: UInt8 = 96) -> Int {
        let w = image.width, h = image.height
        var seen = [Bool](repeating: false, count: w * h)
        var components = 0
        for start in 0..<(w * h) where !seen[start] && image.pixels[start * 4 + 3] >= threshold {
            components += 1
            var stack = [start]
            seen[start] = true
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                for dy in -1...1 {
                    for dx in -1...1 {
                        let nx = x + dx, ny = y + dy
                        guard nx >= 0, ny >= 0, nx < w, ny < h else { continue }
                        let n = ny * w + nx
                        if !seen[n] && image.pixels[n * 4 + 3] >= threshold { seen[n] = true; stack.append(n) }
                    }
                }
            }
        }
        return components
    }

    // MARK: Joining and reading order

    @Test func arabicLettersJoinIntoOneShape() throws {
        // م ح م د have no dots: joined, the word is one shape; in isolated forms it would be four.
        let word = try render("محمد")
        #expect(Self.connectedComponents(word.sprite.image) == 1)
        let isolated = try render("م ح م د")
        #expect(Self.connectedComponents(isolated.sprite.image) == 4)
        #expect(word.warnings.isEmpty)
    }

    @Test func hebrewAndArabicReadRightToLeft() throws {
        for word in ["שלום", "محمد", "أحمد"] {
            let clusters = try shapedLine(word).glyphs.map(\.shaped.cluster)
            // Left to right on screen is last letter to first.
            #expect(clusters == clusters.sorted(by: >), "\(word): \(clusters)")
            #expect(clusters.first == word.unicodeScalars.count - 1 && clusters.last == 0)
        }
        // And in pixels: the first letter of "שלום", drawn alone, is the word's right end.
        let word = try render("שלום").sprite, shin = try render("ש").sprite
        let wordInk = try #require(word.image.opaqueBounds()), shinInk = try #require(shin.image.opaqueBounds())
        var same = 0, total = 0
        // Rows are compared relative to each layout box (the capitals' top), columns from the right end of the ink.
        for y in shinInk.y..<shinInk.maxY {
            for x in 0..<shinInk.width {
                let a = word.image.pixel(x: wordInk.maxX - shinInk.width + x, y: y - shin.layoutBox.y + word.layoutBox.y).alpha > 127
                let b = shin.image.pixel(x: shinInk.x + x, y: y).alpha > 127
                total += 1
                if a == b { same += 1 }
            }
        }
        #expect(Double(same) / Double(total) > 0.95, "the right end of שלום matches ש in \(same) of \(total) pixels")
    }

    @Test func anEmailBesideAnArabicNameKeepsItsOrder() throws {
        let text = "محمد — ada@example.com"
        let (glyphs, paragraph) = try shapedLine(text)
        let emailStart = text.unicodeScalars.count - "ada@example.com".unicodeScalars.count
        let clusters = glyphs.map(\.shaped.cluster)
        let emailClusters = clusters.filter { $0 >= emailStart }
        // The address is drawn left to right, in one piece, at the left of the right-to-left line…
        #expect(emailClusters == Array(emailStart..<paragraph.scalars.count))
        #expect(Array(clusters.prefix(emailClusters.count)) == emailClusters)
        // …and the name reads right to left at its right end.
        #expect(Array(clusters.suffix(4)) == [3, 2, 1, 0])
        // The rendered e-mail is the same ink as the e-mail alone (same glyphs, same spacing).
        let mixed = try render(text).sprite.image, alone = try render("ada@example.com").sprite.image
        let aloneInk = try #require(alone.opaqueBounds()), mixedInk = try #require(mixed.opaqueBounds())
        var equal = 0
        for y in 0..<aloneInk.height {
            for x in 0..<aloneInk.width
            where (mixed.pixel(x: mixedInk.x + x, y: mixedInk.y + y).alpha > 127) == (alone.pixel(x: aloneInk.x + x, y: aloneInk.y + y).alpha > 127) {
                equal += 1
            }
        }
        #expect(Double(equal) / Double(aloneInk.width * aloneInk.height) > 0.97)
    }

    // MARK: Against HarfBuzz's own tools

    /// Runs a command and returns its standard output.
    private func run(_ arguments: [String]) throws -> Data {
        let outcome = try ChildProcess.run("/usr/bin/env", arguments)
        #expect(outcome.status == 0, "\(arguments.joined(separator: " "))")
        return outcome.output
    }

    @Test(arguments: ["देवनागरी", "श्रीमती क्षमा", "स्त्री"])
    func devanagariMatchesHarfBuzzsOwnRendering(name: String) throws {
        let (glyphs, _) = try shapedLine(name)
        let faceIDs = Set(glyphs.map(\.faceID))
        #expect(faceIDs.count == 1, "one font for the whole name")
        let face = fonts.faces[try #require(faceIDs.first)]
        #expect(face.familyName.contains("Devanagari"))

        // Glyph count, as hb-shape shapes the same text with the same font.
        let shaped = String(decoding: try run(["hb-shape", "--no-positions", "--no-clusters", face.path, name]), as: UTF8.self)
        let hbGlyphs = shaped.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst().dropLast().split(separator: "|").count
        #expect(glyphs.count == hbGlyphs, "\(glyphs.count) glyphs, hb-shape: \(shaped)")

        // Ink width, as hb-view draws it at the em size our rendering used.
        let cap = 48.0
        let (primary, _) = try fonts.primaryFace(for: .family(FontLibrary.defaultFamily))
        let em = cap * Double(primary.unitsPerEm) / Double(primary.capHeightUnits)
        let ours = try #require(try render(name, cap: cap).sprite.image.opaqueBounds())
        let png = FileManager.default.temporaryDirectory.appendingPathComponent("hb-view-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: png) }
        _ = try run(["hb-view", "--font-size=\(em)", "--margin=16", "--background=#000000", "--foreground=#FFFFFF",
                     "-O", "png", "-o", png.path, face.path, name])
        let gray = try run(["ffmpeg", "-loglevel", "error", "-i", png.path, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let size = try run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height", "-of", "csv=p=0", png.path])
        let dimensions = String(decoding: size, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let width = try #require(dimensions.first)
        let bytes = [UInt8](gray)
        let inkColumns = (0..<width).filter { x in stride(from: x, to: bytes.count, by: width).contains { bytes[$0] > 127 } }
        let theirs = try #require(inkColumns.last) - (try #require(inkColumns.first)) + 1
        let relative = abs(Double(ours.width) - Double(theirs)) / Double(theirs)
        if ProcessInfo.processInfo.environment["VIDEOWM_PRINT_MEASUREMENTS"] == "1" {
            print("measurement: \(name): \(glyphs.count) glyphs (hb-shape \(hbGlyphs)), ink \(ours.width) px (hb-view \(theirs) px)")
        }
        #expect(relative <= 0.05, "ink width \(ours.width) px, hb-view \(theirs) px")
    }

    // MARK: Colour emoji

    @Test func emojiAreDrawnInColour() throws {
        let rendered = try render("🎓 ada")
        let image = rendered.sprite.image
        #expect(rendered.warnings.isEmpty)
        let ink = try #require(image.opaqueBounds())
        let ada = try #require(try render("ada").sprite.image.opaqueBounds())
        // The emoji is the part of the ink left of where "ada" begins.
        let emojiRight = ink.maxX - ada.width - 4
        func saturated(_ p: RGBAColor) -> Bool {
            Int(max(p.red, p.green, p.blue)) - Int(min(p.red, p.green, p.blue)) > 80 && p.alpha > 200
        }
        var emojiSaturated = 0, textSaturated = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let pixel = image.pixel(x: x, y: y)
                if saturated(pixel) { if x < emojiRight { emojiSaturated += 1 } else { textSaturated += 1 } }
            }
        }
        #expect(emojiSaturated > 200, "\(emojiSaturated) saturated pixels in the emoji")
        #expect(textSaturated == 0)
        // The same face for the whole text except the emoji, which comes from a colour font.
        let (glyphs, _) = try shapedLine("🎓 ada")
        #expect(fonts.faces[glyphs[0].faceID].isColor)
        #expect(glyphs.dropFirst().allSatisfy { !fonts.faces[$0.faceID].isColor })
    }

    @Test func emojiSequencesAreOneGlyph() throws {
        for sequence in ["👩‍🎓", "🇫🇷", "1️⃣", "👍🏽"] {
            let (glyphs, _) = try shapedLine(sequence)
            #expect(glyphs.count == 1 && fonts.faces[glyphs[0].faceID].isColor, "\(sequence): \(glyphs)")
        }
        // "☺" has text presentation (DejaVu Sans draws it); with U+FE0F it is the colour emoji.
        #expect(try !fonts.faces[shapedLine("☺").glyphs[0].faceID].isColor)
        #expect(try fonts.faces[shapedLine("☺\u{FE0F}").glyphs[0].faceID].isColor)
    }

    @Test func emojiTakeTheTextsAlphaAndGetTheOutline() throws {
        let opaque = try render("🎓")
        let translucent = try render("🎓", color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 128))
        let maximum = { (image: PremultipliedRGBAImage) in stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }.max() ?? 0 }
        #expect(maximum(opaque.sprite.image) == 255)
        #expect((126...130).contains(maximum(translucent.sprite.image)))
        // An outline surrounds the emoji's silhouette: the ink grows by twice its width.
        let outlined = try render("🎓", outline: TextOutline(widthPixels: 4, color: .black))
        let plain = try #require(opaque.sprite.image.opaqueBounds()), grown = try #require(outlined.sprite.image.opaqueBounds())
        #expect(abs(grown.width - plain.width - 8) <= 2 && abs(grown.height - plain.height - 8) <= 2)
    }
}
