import Foundation
import Testing
import TestSupport

/// What a photo platform asks of `stamp`: thumbnails of large photos, iPhone HEICs and TIFFs
/// in, and the metadata it chooses out (judged with exiftool, as a photographer would).
@Suite("stamp: sizes, HEIC and TIFF inputs, metadata")
struct StillInputsAndMetadataTests {
    static let config = #"{ "watermarks": [ { "text": "© Example", "size": 0.12, "anchor": "bottom-right", "opacity": 0.9 } ] }"#

    /// The picture's RGBA bytes and size, decoded by ffmpeg.
    static func rgba(_ h: Harness, _ file: String) throws -> (pixels: [UInt8], width: Int, height: Int) {
        let size = try h.ffprobe(["-select_streams", "v:0", "-show_entries", "stream=width,height", "-of", "csv=p=0", file])
            .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").compactMap { Int($0) }
        let r = try h.run("ffmpeg", ["-hide_banner", "-loglevel", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgba", "-"])
        return ([UInt8](r.stdoutData), size[0], size[1])
    }

    /// exiftool's reading of `file`, tag name → value (groups left out).
    static func exif(_ h: Harness, _ file: String) throws -> [String: String] {
        let r = try h.run("exiftool", ["-j", "-n", "-EXIF:all", "-XMP:all", "-ThumbnailImage", file])
        guard r.status == 0, let array = try JSONSerialization.jsonObject(with: r.stdoutData) as? [[String: Any]], let tags = array.first else {
            throw HarnessError.toolFailed("exiftool \(file): \(r.stderr)")
        }
        return tags.mapValues { "\($0)" }
    }

    @Test("--max-size 320 of a 4000×3000 photo: 320×240, the mark drawn at that size (as on a 320×240 photo)")
    func maxSize() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0x406080:size=4000x3000", "-frames:v", "1", "-q:v", "2", h.path("big.jpg")])
        try h.ffmpeg(["-f", "lavfi", "-i", "color=c=0x406080:size=320x240", "-frames:v", "1", "-q:v", "2", h.path("small.jpg")])
        var r = try h.videowm("stamp", h.path("big.jpg"), "-o", h.path("big.png"), "-c", config, "--max-size", "320")
        #expect(r.status == 0, "\(r.stderr)")
        r = try h.videowm("stamp", h.path("small.jpg"), "-o", h.path("small.png"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let scaled = try Self.rgba(h, h.path("big.png")), direct = try Self.rgba(h, h.path("small.png"))
        #expect(scaled.width == 320 && scaled.height == 240)
        try #require(scaled.pixels.count == direct.pixels.count)
        // A flat photo scales to (nearly) the same flat colour, so the two stamps agree to the
        // JPEGs' rounding; a mark drawn at 4000×3000 and scaled down would differ at every glyph edge.
        let worst = zip(scaled.pixels, direct.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 255
        #expect(worst <= 3, "largest difference \(worst)")
        // And there is a mark: many pixels far from the background.
        let marked = stride(from: 0, to: scaled.pixels.count, by: 4).filter { abs(Int(scaled.pixels[$0]) - 0x40) > 60 }.count
        #expect(marked > 200, "\(marked) marked pixels")
    }

    @Test("an iPhone-style HEIC (irot) stamps upright with its ICC profile kept")
    func heic() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        // Stored 64×48 landscape, a red block top-left; irot (orientation 6) shows it 48×64 with the block top-right.
        let stored: [UInt8] = (0..<48).flatMap { y in (0..<64).flatMap { x in x < 16 && y < 12 ? [255, 0, 0] as [UInt8] : [0, 128, 128] } }
        // Carried byte for byte, so any bytes do: a profile's 128-byte header size, then a marker.
        let profile = Data([0, 0, 0, 160] + [UInt8](repeating: 0, count: 124) + Array("videowm test profile, byte for byte".utf8.prefix(32)))
        try HEICFixture.write(rgb: stored, width: 64, height: 48, orientation: 6, iccProfile: [UInt8](profile), path: h.path("phone.heic"))
        for output in ["phone.png", "phone.jpg"] {
            let r = try h.videowm("stamp", h.path("phone.heic"), "-o", h.path(output), "-c", config, "-q")
            #expect(r.status == 0, "\(r.stderr)")
            let image = try Self.rgba(h, h.path(output))
            #expect(image.width == 48 && image.height == 64, "\(output)")
            func red(_ x: Int, _ y: Int) -> Bool {
                let i = (y * image.width + x) * 4
                return image.pixels[i] > 180 && image.pixels[i + 1] < 80 && image.pixels[i + 2] < 80
            }
            #expect(red(43, 4) && !red(4, 4), "\(output): the block shows top-right")
            let icc = try h.run("exiftool", ["-b", "-ICC_Profile", h.path(output)])
            #expect(icc.stdoutData == profile, "\(output): ICC profile of \(icc.stdoutData.count) bytes")
        }
    }

    @Test("a TIFF stamps, its Orientation tag applied")
    func tiff() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1", "-c:v", "tiff", "-pix_fmt", "rgb24", h.path("scan.tif")])
        var r = try h.videowm("stamp", h.path("scan.tif"), "-o", h.path("scan.png"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let stamped = try Self.rgba(h, h.path("scan.png")), plain = try Self.rgba(h, h.path("scan.tif"))
        #expect(stamped.width == 160 && stamped.height == 120)
        #expect(stamped.pixels != plain.pixels)
        // The camera's Orientation 6 (a quarter turn clockwise), which FFmpeg's decoder does not report.
        r = try h.run("exiftool", ["-q", "-overwrite_original", "-n", "-Orientation=6", h.path("scan.tif")])
        #expect(r.status == 0, "\(r.stderr)")
        r = try h.videowm("stamp", h.path("scan.tif"), "-o", h.path("turned.png"), "-c", config)
        #expect(r.status == 0, "\(r.stderr)")
        let turned = try Self.rgba(h, h.path("turned.png"))
        #expect(turned.width == 120 && turned.height == 160)
        // Not strict about tags FFmpeg does not know, but a cut-off file is still an error.
        let whole = try Data(contentsOf: URL(fileURLWithPath: h.path("scan.tif")))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: h.path("cut.tif")))
        r = try h.videowm("stamp", h.path("cut.tif"), "-o", h.path("cut.png"), "-c", config)
        #expect(r.status == 65 && r.stderr.contains("cut.tif"), "\(r.status) \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("cut.png")))
    }

    @Test("--keep-metadata safe keeps Copyright, Artist and DateTimeOriginal, drops GPS and the thumbnail; none keeps nothing")
    func keepSafe() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", h.path("photo.jpg")])
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=160x120", "-frames:v", "1", h.path("thumb.jpg")])
        let r = try h.run("exiftool", ["-q", "-overwrite_original", "-Copyright=Ada Lovelace 2026", "-Artist=Ada Lovelace",
                                       "-DateTimeOriginal=2026:11:30 10:00:00", "-Make=Example", "-Model=Camera 1",
                                       "-GPSLatitude=51.5", "-GPSLatitudeRef=N", "-GPSLongitude=0.12", "-GPSLongitudeRef=W",
                                       "-ThumbnailImage<=\(h.path("thumb.jpg"))", h.path("photo.jpg")])
        try #require(r.status == 0, "\(r.stderr)")
        let input = try Self.exif(h, h.path("photo.jpg"))
        try #require(input["GPSLatitude"] != nil && input["ThumbnailImage"] != nil, "\(input)")
        for output in ["safe.jpg", "safe.png", "safe.webp"] {
            let s = try h.videowm("stamp", h.path("photo.jpg"), "-o", h.path(output), "-c", config, "--keep-metadata", "safe", "-q")
            #expect(s.status == 0, "\(s.stderr)")
            let tags = try Self.exif(h, h.path(output))
            #expect(tags["Copyright"] == "Ada Lovelace 2026" && tags["Artist"] == "Ada Lovelace", "\(output): \(tags)")
            #expect(tags["DateTimeOriginal"] == "2026:11:30 10:00:00" && tags["Model"] == "Camera 1", "\(output): \(tags)")
            #expect(tags["GPSLatitude"] == nil && tags["GPSLongitude"] == nil && tags["ThumbnailImage"] == nil, "\(output): \(tags)")
        }
        let none = try h.videowm("stamp", h.path("photo.jpg"), "-o", h.path("none.jpg"), "-c", config, "-q")
        #expect(none.status == 0, "\(none.stderr)")
        let tags = try Self.exif(h, h.path("none.jpg"))
        #expect(tags["Copyright"] == nil && tags["Artist"] == nil && tags["DateTimeOriginal"] == nil && tags["GPSLatitude"] == nil, "\(tags)")
    }

    @Test("--set-metadata copyright=\"© Example U\": in a still's EXIF and XMP, and in a video's container tags")
    func setCopyright() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let config = try h.write("c.json", Self.config)
        try h.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=320x240", "-frames:v", "1", h.path("photo.jpg")])
        for output in ["set.jpg", "set.png", "set.avif"] {
            let r = try h.videowm("stamp", h.path("photo.jpg"), "-o", h.path(output), "-c", config, "--set-metadata", "copyright=© Example U", "-q")
            #expect(r.status == 0, "\(r.stderr)")
            let tags = try Self.exif(h, h.path(output))
            #expect(tags["Copyright"] == "© Example U" && tags["Rights"] == "© Example U", "\(output): \(tags)")
        }
        // AVIF (libheif's AV1 encoder): the picture, its size and the EXIF item.
        let avif = try h.run("exiftool", ["-j", "-n", "-ImageWidth", "-ImageHeight", "-MajorBrand", h.path("set.avif")])
        #expect(avif.stdout.contains("\"ImageWidth\": 320") && avif.stdout.contains("\"ImageHeight\": 240") && avif.stdout.contains("avif"), "\(avif.stdout)")
        let clip = try h.makeClip("in.mp4", seconds: 0.3, audio: false)
        for output in ["set.mp4", "set.mkv"] {
            let r = try h.videowm("transcode", clip, h.path(output), "-c", config, "--set-metadata", "copyright=© Example U",
                                  "--set-metadata", "title=Lecture 1", "-q")
            #expect(r.status == 0, "\(r.stderr)")
            // Matroska stores tag names in capitals (COPYRIGHT); MP4 as its cprt and ©nam atoms.
            let tags = try h.ffprobe(["-show_entries", "format_tags", "-of", "default=nw=1", h.path(output)]).lowercased()
            #expect(tags.contains("tag:copyright=© example u") && tags.contains("tag:title=lecture 1"), "\(output): \(tags)")
        }
        // Keys that do not apply are usage errors naming them.
        let wrong = try h.videowm("stamp", h.path("photo.jpg"), "-o", h.path("x.jpg"), "-c", config, "--set-metadata", "title=x")
        #expect(wrong.status == 64 && wrong.stderr.contains("title"), "\(wrong.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.path("x.jpg")))
    }
}
