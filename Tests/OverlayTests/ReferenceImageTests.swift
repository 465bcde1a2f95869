import Animation
import Foundation
import Testing
@testable import Overlay

/// Each layer kind rendered at a fixed small size and compared with a committed image, so a
/// change in rendering is seen (and, if intended, accepted by regenerating the references).
///
/// References live in `References/` beside this file as binary PAM ("P7", RGBA, straight
/// alpha): Overlay has no PNG codec, and PAM is a header plus raw bytes that any image
/// tool opens (`ffmpeg -i text.pam text.png`). A missing reference, or any reference when
/// `VIDEOWM_UPDATE_REFERENCES=1`, is written from the current rendering and the test fails
/// saying so: regeneration is always a deliberate, visible step.
@Suite("reference images")
struct ReferenceImageTests {
    static let width = 200, height = 100
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

    /// A logo with soft transparent edges and several colours, so scaling and alpha both show.
    static func softLogo(width: Int = 150, height: Int = 100) -> StraightRGBAImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let dx = (Double(x) + 0.5) / Double(width) - 0.5, dy = (Double(y) + 0.5) / Double(height) - 0.5
                let distance = (dx * dx + dy * dy).squareRoot() * 2
                let i = (y * width + x) * 4
                pixels[i] = UInt8(255 * x / width)
                pixels[i + 1] = UInt8(255 * y / height)
                pixels[i + 2] = (x / 10 + y / 10) % 2 == 0 ? 200 : 40
                pixels[i + 3] = UInt8(max(0, min(255, (1.1 - distance) * 400)))
            }
        }
        return StraightRGBAImage(width: width, height: height, pixels: pixels)
    }

    static let cases: [(name: String, layer: LayerSpec)] = [
        ("text-outline-shadow-box", LayerSpec(
            content: .text("Wm 42%"), sizeFraction: 0.15, color: RGBAColor(argb: 0xFFFFE0A0), opacity: 0.9,
            outline: LayerSpec.Outline(widthFraction: 0.012, color: .black),
            shadow: LayerSpec.Shadow(offsetXFraction: 0.02, offsetYFraction: 0.02, blurFraction: 0.02, color: RGBAColor(argb: 0xC0000000)),
            box: LayerSpec.Box(color: RGBAColor(argb: 0x802040A0), paddingFraction: 0.04, radiusFraction: 0.05),
            timeline: LayerTimeline(xPercent: 50, yPercent: 50))),
        ("logo", LayerSpec(
            content: .image(softLogo(), name: "logo"), sizeFraction: 0.6, opacity: 0.9,
            timeline: LayerTimeline(xPercent: 50, yPercent: 50))),
        ("tile", LayerSpec(
            content: .text("TILE"), sizeFraction: 0.1, color: RGBAColor(argb: 0xFF40C0FF), opacity: 0.6,
            tile: TilePattern(angleDegrees: -30, spacingFraction: 0.05),
            timeline: LayerTimeline(xPercent: 0, yPercent: 0))),
    ]

    @Test(arguments: cases.map(\.name))
    func matchesReference(name: String) throws {
        let layer = try #require(Self.cases.first { $0.name == name }).layer
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary())
        let rendered = try CanvasMeasurements.render(compositor, width: Self.width, height: Self.height)
        let file = Self.directory.appendingPathComponent("\(name).pam")

        let update = ProcessInfo.processInfo.environment["VIDEOWM_UPDATE_REFERENCES"] == "1"
        guard !update, FileManager.default.fileExists(atPath: file.path) else {
            try PAM.write(rendered, to: file)
            Issue.record("reference \(file.lastPathComponent) \(update ? "regenerated" : "was missing and has been written"); look at it (ffmpeg -i \(file.path) /tmp/\(name).png), commit it and re-run")
            return
        }
        let reference = try PAM.read(file)
        #expect(reference.width == rendered.width && reference.height == rendered.height)
        guard reference.width == rendered.width, reference.height == rendered.height else { return }
        let difference = Self.compare(rendered, reference)
        let tolerated = difference.pixelsOverTwo <= rendered.width * rendered.height / 200 && difference.largest <= 32
        if !tolerated {
            let actual = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).actual.pam")
            try? PAM.write(rendered, to: actual)
            Issue.record("""
                \(name) differs from its reference: \(difference.pixelsOverTwo) pixels by more than 2 levels, \
                largest difference \(difference.largest) (the rendering is in \(actual.path); \
                VIDEOWM_UPDATE_REFERENCES=1 regenerates the references if the change is intended)
                """)
        }
    }

    /// Differences in premultiplied colour (a nearly transparent pixel's straight colour is noise).
    static func compare(_ a: StraightRGBAImage, _ b: StraightRGBAImage) -> (pixelsOverTwo: Int, largest: Int) {
        let pa = a.premultiplied().pixels, pb = b.premultiplied().pixels
        var over = 0, largest = 0
        for pixel in stride(from: 0, to: pa.count, by: 4) {
            var worst = 0
            for c in 0..<4 { worst = max(worst, abs(Int(pa[pixel + c]) - Int(pb[pixel + c]))) }
            if worst > 2 { over += 1 }
            largest = max(largest, worst)
        }
        return (over, largest)
    }

    @Test func pamRoundTrips() throws {
        let image = Self.softLogo(width: 7, height: 3)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID().uuidString).pam")
        defer { try? FileManager.default.removeItem(at: file) }
        try PAM.write(image, to: file)
        #expect(try PAM.read(file) == image)
    }

    @Test func referencesStaySmall() throws {
        for (name, _) in Self.cases {
            let file = Self.directory.appendingPathComponent("\(name).pam")
            guard let size = try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int else { continue }
            #expect(size < 100_000, "\(name).pam is \(size) bytes")
        }
    }
}

/// Netpbm's PAM with `TUPLTYPE RGB_ALPHA`: a text header, then rows of 8-bit RGBA.
enum PAM {
    struct FormatError: Error, CustomStringConvertible {
        var description: String
    }

    static func write(_ image: StraightRGBAImage, to url: URL) throws {
        let header = "P7\nWIDTH \(image.width)\nHEIGHT \(image.height)\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
        try (Data(header.utf8) + Data(image.pixels)).write(to: url)
    }

    static func read(_ url: URL) throws -> StraightRGBAImage {
        let bytes = [UInt8](try Data(contentsOf: url))
        let marker = Array("ENDHDR\n".utf8)
        guard let end = (0...max(0, bytes.count - marker.count)).first(where: { bytes[$0..<$0 + marker.count].elementsEqual(marker) }) else {
            throw FormatError(description: "\(url.path): no ENDHDR")
        }
        var fields: [String: String] = [:]
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\n")
        guard lines.first == "P7" else { throw FormatError(description: "\(url.path): not a PAM file") }
        for line in lines.dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let width = fields["WIDTH"].flatMap({ Int($0) }), let height = fields["HEIGHT"].flatMap({ Int($0) }),
              fields["DEPTH"] == "4", fields["MAXVAL"] == "255" else {
            throw FormatError(description: "\(url.path): expected 8-bit RGBA (DEPTH 4, MAXVAL 255)")
        }
        let pixels = Array(bytes[(end + marker.count)...])
        guard pixels.count == width * height * 4 else {
            throw FormatError(description: "\(url.path): \(pixels.count) bytes of pixels for \(width)×\(height)")
        }
        return StraightRGBAImage(width: width, height: height, pixels: pixels)
    }
}
