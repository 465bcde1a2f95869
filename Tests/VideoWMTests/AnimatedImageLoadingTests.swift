import Animation
import Foundation
import Overlay
import Testing
@testable import VideoWM

/// Animated logos: GIF and APNG through FFmpeg, animated WebP through libwebp, each with its
/// frames and their timing; still files are left to the still reader. Files are made by the
/// ffmpeg command-line tool from three solid frames (red, green, blue) at 2 frames a second.
@Suite("animated image loading")
struct AnimatedImageLoadingTests {
    let folder: URL
    static let colors = [RGBAColor(red: 255, green: 0, blue: 0), RGBAColor(red: 0, green: 255, blue: 0), RGBAColor(red: 0, green: 0, blue: 255)]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("AnimatedImageLoadingTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (index, name) in ["red", "lime", "blue"].enumerated() {
            try ImageLoadingTests.runFFmpeg(["-f", "lavfi", "-i", "color=\(name):s=24x16", "-frames:v", "1", path("\(index + 1).png")])
        }
    }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// Three half-second frames from the numbered PNGs, encoded with `arguments`.
    func animation(_ name: String, _ arguments: [String]) throws -> String {
        try ImageLoadingTests.runFFmpeg(["-framerate", "2", "-i", path("%d.png")] + arguments + [path(name)])
        return path(name)
    }

    func expectThreeHalfSecondFrames(_ animation: AnimatedImage?, _ what: String) {
        guard let animation else { Issue.record("\(what): not read as an animation"); return }
        #expect(animation.frames.count == 3, "\(what)")
        #expect((animation.width, animation.height) == (24, 16), "\(what)")
        for (index, frame) in animation.frames.enumerated() {
            let pixel = frame.pixel(x: 12, y: 8)
            let expected = Self.colors[index]
            #expect(abs(Int(pixel.red) - Int(expected.red)) <= 8 && abs(Int(pixel.green) - Int(expected.green)) <= 8
                    && abs(Int(pixel.blue) - Int(expected.blue)) <= 8 && pixel.alpha == 255, "\(what) frame \(index + 1): \(pixel)")
        }
        #expect(animation.loop.loopDuration == PresentationTime(milliseconds: 1500), "\(what)")
        #expect(animation.frameIndex(at: PresentationTime(milliseconds: 600)) == 1, "\(what)")
        #expect(animation.frameIndex(at: PresentationTime(milliseconds: 1600)) == 0, "\(what)")
    }

    @Test func gif() throws {
        let file = try animation("logo.gif", ["-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse"])
        expectThreeHalfSecondFrames(try AnimatedImageReader.read(path: file), "GIF")
    }

    @Test func apngEvenNamedPNG() throws {
        let file = try animation("logo.apng", ["-plays", "0", "-f", "apng"])
        expectThreeHalfSecondFrames(try AnimatedImageReader.read(path: file), "APNG")
        let renamed = path("logo.png")
        try FileManager.default.copyItem(atPath: file, toPath: renamed)
        expectThreeHalfSecondFrames(try AnimatedImageReader.read(path: renamed), "APNG named .png")
    }

    @Test func animatedWebP() throws {
        let file = try animation("logo.webp", ["-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0"])
        expectThreeHalfSecondFrames(try AnimatedImageReader.read(path: file), "WebP")
    }

    @Test func stillsAreNotAnimations() throws {
        #expect(try AnimatedImageReader.read(path: path("1.png")) == nil)
        try ImageLoadingTests.runFFmpeg(["-i", path("1.png"), path("still.gif")])
        #expect(try AnimatedImageReader.read(path: path("still.gif")) == nil)
        try ImageLoadingTests.runFFmpeg(["-i", path("1.png"), "-c:v", "libwebp", path("still.webp")])
        #expect(try AnimatedImageReader.read(path: path("still.webp")) == nil)
    }

    @Test func aDamagedAnimatedWebPIsAClearError() throws {
        let file = try animation("logo.webp", ["-c:v", "libwebp_anim", "-lossless", "1", "-loop", "0"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let truncated = path("truncated.webp")
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        #expect(throws: MediaError.self) { try AnimatedImageReader.read(path: truncated) }
    }
}
