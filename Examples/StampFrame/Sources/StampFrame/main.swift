// Stamps one frame through videowm's public API: loads a watermark config, builds the
// compositor a job would use, marks a grey RGBA frame with it, and checks that pixels
// changed where the mark belongs (the bottom-right corner) and nowhere else.
// Exit 0 when they did; 1, with the reason, when not.
import Animation
import Foundation
import Overlay
import VideoWM

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("StampFrame: \(message)\n".utf8))
    exit(1)
}

// The config sits beside this package's manifest; {name} is filled in below.
let configPath = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("stamp.json").path

let width = 320, height = 180
let grey: [UInt8] = [128, 128, 128, 255]
var pixels = [UInt8]((0..<(width * height)).flatMap { _ in grey })

do {
    let config = try WatermarkConfig.load(path: configPath, warn: { print("warning: \($0)") })
    let compositor = try Compositor.forJob(config: config, variables: ["name": "Ada"], warn: { print("warning: \($0)") })
    try pixels.withUnsafeMutableBufferPointer { buffer in
        let canvas = RGBACanvas(pixels: buffer.baseAddress!, width: width, height: height, bytesPerRow: width * 4)
        try compositor.composite(onto: canvas, at: PresentationTime(seconds: 0))
    }
} catch {
    fail("\(error)")
}

// Which pixels differ from the grey they started as, and where.
var changed = 0
var bounds = (minX: width, minY: height, maxX: -1, maxY: -1)
for y in 0..<height {
    for x in 0..<width where !pixels[(y * width + x) * 4..<(y * width + x) * 4 + 4].elementsEqual(grey) {
        changed += 1
        bounds = (min(bounds.minX, x), min(bounds.minY, y), max(bounds.maxX, x), max(bounds.maxY, y))
    }
}
guard changed > 0 else { fail("the mark changed no pixel") }
guard bounds.minX >= width / 2, bounds.minY >= height / 2 else {
    fail("pixels changed outside the bottom-right quarter: \(bounds)")
}
print("StampFrame: \(changed) pixels marked, all in x \(bounds.minX)…\(bounds.maxX), y \(bounds.minY)…\(bounds.maxY) of \(width)×\(height)")
