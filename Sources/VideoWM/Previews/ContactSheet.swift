import Animation
import Foundation
import Overlay

/// `videowm preview`: a contact sheet of frames spread evenly over a video, each marked
/// exactly as `transcode` marks it and labelled with its time, so a person sees the whole
/// animation path before starting a long job.
///
/// Frames are found by seeking (`VideoFrameLocator`), marked at full size in YUV
/// (`FrameMarker`, the pipeline's own code), then scaled into their tile; the sheet is
/// written like any still (temporary file and rename).
public enum ContactSheet {
    /// Frames on a sheet when the caller does not say (`--frames`).
    public static let defaultFrameCount = 12
    /// The most frames a sheet holds.
    public static let frameCountLimit = 100

    /// The times sampled: the first frame, the end, and evenly between.
    static func sampleTimes(count: Int, durationSeconds: Double) -> [PresentationTime] {
        precondition(count >= 1, "a sheet needs a frame")
        guard count > 1, durationSeconds > 0 else { return [.zero] }
        return (0..<count).map { PresentationTime(seconds: durationSeconds * Double($0) / Double(count - 1)) }
    }

    /// A label such as "0:07.500" or "1:02:03.040": minutes and seconds to the millisecond.
    static func label(for time: PresentationTime) -> String {
        let totalMilliseconds = Int64((max(0, time.seconds) * 1000).rounded())
        let milliseconds = totalMilliseconds % 1000, totalSeconds = totalMilliseconds / 1000
        let seconds = totalSeconds % 60, minutes = totalSeconds / 60 % 60, hours = totalSeconds / 3600
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let fraction = String(milliseconds + 1000).dropFirst()
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(seconds)).\(fraction)" : "\(minutes):\(two(seconds)).\(fraction)"
    }

    /// Where everything goes on the sheet, in pixels.
    struct Layout: Equatable {
        /// The longest side a tile's picture gets; smaller videos keep their size.
        static let tileLongSide = 480
        static let gutter = 8
        static let labelHeight = 28
        static let labelCapHeight = 13.0

        let tileWidth: Int
        let tileHeight: Int
        let columns: Int
        let rows: Int

        /// A grid for `count` frames of a `displayWidth`×`displayHeight` video, with about as many
        /// columns as keep the sheet near a 16:9 screen.
        init(count: Int, displayWidth: Int, displayHeight: Int) {
            precondition(count >= 1 && displayWidth > 0 && displayHeight > 0, "an empty sheet")
            let scale = min(1, Double(Self.tileLongSide) / Double(max(displayWidth, displayHeight)))
            tileWidth = max(1, Int((Double(displayWidth) * scale).rounded()))
            tileHeight = max(1, Int((Double(displayHeight) * scale).rounded()))
            let cellAspect = Double(tileHeight + Self.labelHeight) / Double(tileWidth)
            let wanted = max(1, min(count, Int((Double(count) * cellAspect * 16 / 9).squareRoot().rounded(.up))))
            rows = (count + wanted - 1) / wanted
            columns = (count + rows - 1) / rows
        }

        var sheetWidth: Int { Self.gutter + columns * (tileWidth + Self.gutter) }
        var sheetHeight: Int { Self.gutter + rows * (tileHeight + Self.labelHeight + Self.gutter) }

        /// The top-left corner of tile `index` (row by row).
        func tileOrigin(_ index: Int) -> (x: Int, y: Int) {
            (Self.gutter + index % columns * (tileWidth + Self.gutter),
             Self.gutter + index / columns * (tileHeight + Self.labelHeight + Self.gutter))
        }
    }

    static let background = RGBAColor(red: 0x1E, green: 0x1E, blue: 0x1E, alpha: 255)
    static let labelColor = RGBAColor(red: 0xE6, green: 0xE6, blue: 0xE6, alpha: 255)

    /// Writes the sheet of `frames` frames of `video` to `output`; `hdr`: what becomes of PQ or
    /// HLG frames (kept, the sheet's background and labels are placed in their signal too).
    public static func make(video: String, output: String, frames: Int = defaultFrameCount, compositor: Compositor,
                            overwrite: Bool, hdr: HDRStillRendering = .toneMappedToSDR, warn: WarningHandler = { _ in }) throws {
        precondition((1...frameCountLimit).contains(frames), "frame count out of range")
        _ = try StillImageWriter.checkFormat(output)
        let locator = try VideoFrameLocator(path: video)
        compositor.timecode = locator.timecode(warn: warn)
        let destination = try StillImageWriter.reserve(output, overwrite: overwrite, inputs: [video])
        guard let duration = locator.durationSeconds else {
            throw MediaError(file: video, detail: "its duration is unknown, so frames cannot be spread over it")
        }
        let fonts = try TextEngineError.fontLibrary()

        var sheet: StraightRGBAImage?
        var layout: Layout?
        // What the tiles' pixels are (the first tile's say; a video keeps its colour), and for
        // tone-mapped HDR tiles one mapping, its tables made once.
        var codePoints: [UInt8]?
        var sheetColorSpace = FrameColorSpace.sdr
        var toneMapping: HDRToneMapping?
        for (index, time) in sampleTimes(count: frames, durationSeconds: duration).enumerated() {
            try Interruption.throwIfRequested()
            let located = try locator.frame(at: time)
            let display = locator.rotation.displaySize(storedWidth: located.frame.width, storedHeight: located.frame.height)
            let frameColorSpace = located.frame.color.frameColorSpace
            if layout == nil {
                let made = Layout(count: frames, displayWidth: display.width, displayHeight: display.height)
                layout = made
                if frameColorSpace.isHDR && hdr == .keptHDR { sheetColorSpace = frameColorSpace }
                sheet = StraightRGBAImage(width: made.sheetWidth, height: made.sheetHeight, fill: Self.color(background, in: sheetColorSpace))
            }
            if frameColorSpace.isHDR && hdr == .toneMappedToSDR && toneMapping?.colorSpace != frameColorSpace {
                toneMapping = HDRToneMapping(colorSpace: frameColorSpace, sourcePeakNits: located.frame.sourcePeakNits)
            }
            guard let layout, var drawn = sheet else { continue }
            // Taken out while it changes, so its pixels have one owner and are not copied.
            sheet = nil
            defer { sheet = drawn }
            let tile = try MarkedStill.upright(located, rotation: locator.rotation, compositor: compositor, file: video,
                                                scaledTo: (layout.tileWidth, layout.tileHeight), hdr: hdr, toneMapping: toneMapping)
            if index == 0 { codePoints = tile.codePoints }
            let origin = layout.tileOrigin(index)
            drawn.paste(tile.image, atX: origin.x, y: origin.y)
            let rendered = try fonts.render(TextStyle(text: label(for: located.time), capHeightPixels: Layout.labelCapHeight,
                                                      color: labelColor, maxWidthPixels: Double(layout.tileWidth)))
            let box = rendered.sprite.layoutBox
            let labelTop = origin.y + layout.tileHeight + (Layout.labelHeight - box.height) / 2
            drawn.withCanvas(colorSpace: sheetColorSpace) { canvas in
                canvas.blend(PreparedMark(sprite: rendered.sprite), atX: origin.x - box.x, y: labelTop - box.y, opacity: 255)
            }
        }
        guard let sheet else { throw MediaError(file: video, detail: "no frame could be decoded") }
        try StillImageWriter.write(sheet, into: destination, settings: StillImageWriter.Settings(codePoints: codePoints))
    }

    /// An sRGB colour of the sheet placed in `colorSpace`'s signal as the marks are (graphics white).
    private static func color(_ color: RGBAColor, in colorSpace: FrameColorSpace) -> RGBAColor {
        guard colorSpace.isHDR else { return color }
        let signal = GraphicsWhiteMapping(colorSpace: colorSpace).signal(red: Double(color.red) / 255, green: Double(color.green) / 255,
                                                                         blue: Double(color.blue) / 255)
        func byte(_ v: Double) -> UInt8 { UInt8((min(max(v, 0), 1) * 255).rounded()) }
        return RGBAColor(red: byte(signal.x), green: byte(signal.y), blue: byte(signal.z), alpha: color.alpha)
    }
}

extension StraightRGBAImage {
    /// Copies `image` into this one with its top-left corner at (`x`, `y`); it must fit.
    mutating func paste(_ image: StraightRGBAImage, atX x: Int, y: Int) {
        precondition(x >= 0 && y >= 0 && x + image.width <= width && y + image.height <= height, "paste outside the image")
        let rowBytes = image.width * 4, sheetWidth = width
        pixels.withUnsafeMutableBufferPointer { target in
            image.pixels.withUnsafeBufferPointer { source in
                guard let to = target.baseAddress, let from = source.baseAddress else { return }
                for row in 0..<image.height {
                    (to + ((y + row) * sheetWidth + x) * 4).update(from: from + row * rowBytes, count: rowBytes)
                }
            }
        }
    }
}
