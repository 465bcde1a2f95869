import Foundation
import TestSupport
import Overlay
import Testing
@testable import VideoWM

/// Logos and stills: every PNG flavour with its alpha, JPEG, WebP with alpha, absurd
/// headers refused before any allocation, bad files as clear errors, and http(s) images
/// fetched once. Files are made by the ffmpeg command-line tool (an independent encoder).
@Suite("image loading")
struct ImageLoadingTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("ImageLoadingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Runs `ffmpeg` (killed after 30 s) and returns its standard output.
    @discardableResult
    static func runFFmpeg(_ arguments: [String]) throws -> Data {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("ffmpeg-\(UUID().uuidString)")
        let output = log.appendingPathExtension("out"), errors = log.appendingPathExtension("err")
        for file in [output, errors] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        defer { for file in [output, errors] { try? FileManager.default.removeItem(at: file) } }
        let process = try ChildProcess("/usr/bin/ffmpeg", ["-nostdin", "-loglevel", "error", "-y"] + arguments,
                                       stdout: .file(output.path, flags: O_WRONLY | O_TRUNC), stderr: .file(errors.path, flags: O_WRONLY | O_TRUNC))
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let message = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        try #require(process.terminationStatus == 0, "ffmpeg \(arguments.joined(separator: " ")) failed: \(message)")
        return try Data(contentsOf: output)
    }

    /// Runs `ffmpeg` to make `name` in the test's folder; returns its path.
    @discardableResult
    func ffmpeg(_ arguments: [String], output name: String) throws -> String {
        try Self.runFFmpeg(arguments + [path(name)])
        return path(name)
    }

    /// The file as the ffmpeg tool decodes it to 8-bit RGBA: an independent reference.
    func ffmpegRGBA(_ file: String) throws -> [UInt8] {
        [UInt8](try Self.runFFmpeg(["-i", file, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgba", "-"]))
    }

    /// Expects our decode of `file` to match ffmpeg's within `tolerance` levels per channel.
    func expectSameAsFFmpeg(_ image: StraightRGBAImage, _ file: String, tolerance: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = try ffmpegRGBA(file)
        #expect(reference.count == image.pixels.count, sourceLocation: sourceLocation)
        let worst = zip(reference, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= tolerance, "decoded \(file) differs from ffmpeg's decode by \(worst)", sourceLocation: sourceLocation)
    }

    /// A 16×16 source: colour `hex` on the left half with alpha `left`, on the right half with alpha `right`.
    static func source(_ hex: String, format: String = "rgba", left: String = "255", right: String = "0") -> [String] {
        ["-f", "lavfi", "-i", "color=c=\(hex):s=16x16:d=0.04,format=\(format),geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,8),\(left),\(right))'",
         "-frames:v", "1"]
    }

    func read(_ path: String) throws -> StraightRGBAImage { try StillImageReader.read(path: path).image }

    func expectPixel(_ image: StraightRGBAImage, x: Int, y: Int, _ expected: RGBAColor, tolerance: Int,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        let p = image.pixel(x: x, y: y)
        let worst = [Int(p.red) - Int(expected.red), Int(p.green) - Int(expected.green), Int(p.blue) - Int(expected.blue),
                     Int(p.alpha) - Int(expected.alpha)].map(abs).max()!
        #expect(worst <= tolerance, "pixel (\(x), \(y)) is \(p), expected \(expected) ± \(tolerance)", sourceLocation: sourceLocation)
    }

    /// Reads `body`'s error (or records that none came).
    func failure(_ body: () throws -> Void) -> (any Error)? {
        do { try body() } catch { return error }
        Issue.record("expected an error")
        return nil
    }

    // MARK: Formats, alpha kept

    @Test func paletteWithTransparency() throws {
        let file = try ffmpeg(Self.source("0xC86432") + [
            "-filter_complex", "split[a][b];[a]palettegen=reserve_transparent=1[p];[b][p]paletteuse=alpha_threshold=128",
            "-pix_fmt", "pal8"], output: "palette.png")
        let image = try read(file)
        #expect(image.width == 16 && image.height == 16)
        expectPixel(image, x: 2, y: 8, RGBAColor(red: 200, green: 100, blue: 50), tolerance: 4)
        #expect(image.pixel(x: 12, y: 8).alpha == 0)
        try expectSameAsFFmpeg(image, file, tolerance: 0)
    }

    @Test func sixteenBitsPerChannel() throws {
        let file = try ffmpeg(Self.source("0x336699", format: "rgba64be", left: "65535", right: "32896") + ["-pix_fmt", "rgba64be"],
                              output: "deep.png")
        let image = try read(file)
        expectPixel(image, x: 2, y: 8, RGBAColor(red: 51, green: 102, blue: 153), tolerance: 1)
        expectPixel(image, x: 12, y: 8, RGBAColor(red: 51, green: 102, blue: 153, alpha: 128), tolerance: 1)
        try expectSameAsFFmpeg(image, file, tolerance: 1)
    }

    @Test func greyWithAlpha() throws {
        let file = try ffmpeg(["-f", "lavfi", "-i", "color=c=black:s=16x16:d=0.04,format=ya8,geq=lum='100':a='if(lt(X,8),255,64)'",
                               "-frames:v", "1", "-pix_fmt", "ya8"], output: "grey.png")
        let image = try read(file)
        // The grey level is whatever ffmpeg's geq stored (98 for 100); the alpha is what matters here.
        #expect(image.pixel(x: 2, y: 8).alpha == 255 && image.pixel(x: 12, y: 8).alpha == 64)
        let grey = image.pixel(x: 12, y: 8)
        #expect(grey.red == grey.green && grey.green == grey.blue && abs(Int(grey.red) - 100) <= 3)
        try expectSameAsFFmpeg(image, file, tolerance: 0)
    }

    @Test func jpeg() throws {
        let file = try ffmpeg(["-f", "lavfi", "-i", "color=c=0xC86432:s=32x32:d=0.04", "-frames:v", "1", "-q:v", "2"], output: "photo.jpg")
        let image = try read(file)
        expectPixel(image, x: 16, y: 16, RGBAColor(red: 200, green: 100, blue: 50), tolerance: 4)
    }

    /// Lossy WebP is limited-range YUV with an alpha plane; lossless is exact ARGB.
    @Test(arguments: [(["-pix_fmt", "yuva420p", "-quality", "95"], 6), (["-lossless", "1"], 0)])
    func webpWithAlpha(options: [String], tolerance: Int) throws {
        let file = try ffmpeg(Self.source("0xC86432") + ["-c:v", "libwebp"] + options, output: "logo.webp")
        let image = try read(file)
        expectPixel(image, x: 2, y: 8, RGBAColor(red: 200, green: 100, blue: 50), tolerance: tolerance)
        #expect(image.pixel(x: 13, y: 8).alpha == 0)
    }

    // MARK: Absurd and broken files

    /// A PNG signature, an IHDR declaring `width`×`height` RGBA and a tiny IDAT: what a hostile file needs.
    func writePNGHeader(width: UInt32, height: UInt32, name: String) throws -> String {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        let ihdr = bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        // zlib stream of one stored block holding a filter byte and one pixel.
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x05, 0x00, 0xFA, 0xFF, 0, 0, 0, 0, 0, 0x00, 0x05, 0x00, 0x01]
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
        _ = FileManager.default.createFile(atPath: path(name), contents: Data(bytes))
        return path(name)
    }

    @Test(arguments: [(60000 as UInt32, 60000 as UInt32), (12000, 12000), (20000, 10)])
    func absurdHeaderIsRefusedBeforeDecoding(width: UInt32, height: UInt32) throws {
        let file = try writePNGHeader(width: width, height: height, name: "huge.png")
        let started = Date()
        let error = failure { _ = try read(file) }
        #expect(error is MediaError)
        #expect(error?.message.contains(file) == true)
        #expect(error?.message.contains("declares \(width)×\(height) pixels") == true, "\(String(describing: error))")
        // Refused from the header: no decoder ran (a 12000×12000 decode alone takes seconds and 600 MB).
        #expect(Date().timeIntervalSince(started) < 2)
    }

    @Test func headerSizesAreReadForEachFormat() throws {
        let png = try ffmpeg(Self.source("0x336699") + ["-s", "40x30"], output: "size.png")
        let jpeg = try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=48x20:d=0.04", "-frames:v", "1"], output: "size.jpg")
        let lossy = try ffmpeg(Self.source("0x336699") + ["-s", "34x18", "-c:v", "libwebp", "-pix_fmt", "yuva420p"], output: "size.webp")
        let lossless = try ffmpeg(Self.source("0x336699") + ["-s", "22x14", "-c:v", "libwebp", "-lossless", "1"], output: "lossless.webp")
        let opaque = try ffmpeg(["-f", "lavfi", "-i", "color=c=red:s=30x26:d=0.04", "-frames:v", "1", "-c:v", "libwebp", "-pix_fmt", "yuv420p"],
                                output: "opaque.webp")
        for (file, expected) in [(png, [40, 30]), (jpeg, [48, 20]), (lossy, [34, 18]), (lossless, [22, 14]), (opaque, [30, 26])] {
            let size = ImageHeader.declaredSize(ofFileAt: file)
            #expect(size.map { [$0.width, $0.height] } == expected, "\(file)")
        }
        #expect(ImageHeader.declaredSize([1, 2, 3]) == nil)
    }

    @Test func missingFileIsExit66NamingIt() {
        let error = failure { _ = try read(path("nope.png")) }
        #expect((error as? InputError)?.isMissing == true)
        #expect(error?.message.contains(path("nope.png")) == true)
    }

    @Test func emptyTruncatedAndRandomFilesAreExit65NamingThem() throws {
        _ = FileManager.default.createFile(atPath: path("empty.png"), contents: Data())
        let good = try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x64:d=0.04", "-frames:v", "1"], output: "good.png")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        _ = FileManager.default.createFile(atPath: path("truncated.png"), contents: bytes.prefix(bytes.count / 2))
        var generator = SystemRandomNumberGenerator()
        _ = FileManager.default.createFile(atPath: path("random.png"), contents: Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        let goodJPEG = try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x64:d=0.04", "-frames:v", "1"], output: "good.jpg")
        let jpegBytes = try Data(contentsOf: URL(fileURLWithPath: goodJPEG))
        _ = FileManager.default.createFile(atPath: path("truncated.jpg"), contents: jpegBytes.prefix(jpegBytes.count / 2))
        for name in ["empty.png", "truncated.png", "random.png", "truncated.jpg"] {
            let error = failure { _ = try read(path(name)) }
            #expect(error is MediaError, "\(name): \(String(describing: error))")
            #expect(error?.message.contains(path(name)) == true, "\(name): \(String(describing: error))")
        }
    }

    // MARK: http(s) images

    /// `python3 -m http.server` on 127.0.0.1, on a port the system picks, serving `folder`.
    final class LocalServer {
        let process: ChildProcess
        let port: Int

        init(serving folder: URL) throws {
            process = try ChildProcess("/usr/bin/python3", ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", folder.path],
                                       stdout: .pipe, stderr: .null)
            let output = process.output!
            // "Serving HTTP on 127.0.0.1 port 43117 (http://127.0.0.1:43117/) ..."
            var text = ""
            let deadline = Date().addingTimeInterval(10)
            while !text.contains("port "), Date() < deadline, process.isRunning {
                let data = output.availableData
                if data.isEmpty { usleep(20_000) }
                text += String(decoding: data, as: UTF8.self)
            }
            guard let range = text.range(of: "port "), let port = Int(text[range.upperBound...].prefix { $0.isNumber }) else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw InputError(file: "python3 -m http.server", problem: .unreadable(what: "its port: \(text)"))
            }
            self.port = port
        }

        func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

        func stop() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        deinit { stop() }
    }

    @Test func httpImagesAreFetchedOnceAndErrorsNameTheURL() throws {
        _ = try ffmpeg(Self.source("0xC86432") + ["-c:v", "libwebp", "-lossless", "1"], output: "remote.webp")
        _ = FileManager.default.createFile(atPath: path("not-an-image.png"), contents: Data("hello".utf8))
        let server = try LocalServer(serving: folder)
        let cache = ImageCache()
        let logo = try cache.image(at: server.url("remote.webp"))
        expectPixel(logo, x: 2, y: 8, RGBAColor(red: 200, green: 100, blue: 50), tolerance: 0)
        #expect(logo.pixel(x: 13, y: 8).alpha == 0)

        let missing = failure { _ = try cache.image(at: server.url("absent.png")) }
        #expect(missing is InputError)
        #expect(missing?.message.contains(server.url("absent.png")) == true)
        #expect(missing?.message.contains("404") == true, "\(String(describing: missing))")

        let garbage = failure { _ = try cache.image(at: server.url("not-an-image.png")) }
        #expect(garbage is MediaError)
        #expect(garbage?.message.hasPrefix(server.url("not-an-image.png")) == true, "\(String(describing: garbage))")

        // Once fetched, the image comes from the cache: the server can go.
        server.stop()
        #expect(try cache.image(at: server.url("remote.webp")) == logo)
        let gone = failure { _ = try cache.image(at: server.url("other.webp")) }
        #expect(gone is InputError)
        #expect(gone?.message.contains(server.url("other.webp")) == true)
    }
}

private func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// PNG's CRC-32 (ISO 3309), bit by bit: only a few small chunks are checksummed.
private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
