import Animation
import Testing
@testable import Overlay

/// Layers whose text is a function of presentation time (timecode, PTS burn-in).
@Suite struct TimedTextTests {
    /// Frame numbers at 25 fps, as a stand-in for a timecode.
    static let frameCounter = TimedText { time in
        let frame = Int((time.seconds * 25).rounded(.down))
        return "TC \(frame / 25):\(frame % 25 < 10 ? "0" : "")\(frame % 25)"
    }

    static func layer(outline: Bool = false) -> LayerSpec {
        LayerSpec(content: .timedText(frameCounter), sizeFraction: 0.05, opacity: 0.8,
                  outline: outline ? LayerSpec.Outline(widthFraction: 0.004, color: .black) : nil,
                  timeline: LayerTimeline(xPercent: 100, yPercent: 100))
    }

    @Test func theTextFollowsPresentationTimeAndIsAPureFunctionOfIt() throws {
        let compositor = Compositor(layers: [Self.layer()], fonts: try FontLibrary())
        let first = try CanvasMeasurements.render(compositor, width: 320, height: 180, at: .zero)
        let later = try CanvasMeasurements.render(compositor, width: 320, height: 180, at: PresentationTime(seconds: 1.04))
        #expect(first != later)
        // Back to an earlier time: the same pixels, whatever was drawn in between.
        #expect(try CanvasMeasurements.render(compositor, width: 320, height: 180, at: .zero) == first)
        // A fresh compositor asked straight for the later time draws the same as one that got there frame by frame.
        let fresh = Compositor(layers: [Self.layer()], fonts: try FontLibrary())
        #expect(try CanvasMeasurements.render(fresh, width: 320, height: 180, at: PresentationTime(seconds: 1.04)) == later)
        // The same as a fixed text layer with that text.
        var fixed = Self.layer()
        fixed.content = .text("TC 1:01")
        #expect(try CanvasMeasurements.render(Compositor(layers: [fixed], fonts: try FontLibrary()), width: 320, height: 180) == later)
    }

    @Test func onlyGlyphsNeverDrawnBeforeAreRasterised() throws {
        let fonts = try FontLibrary()
        let compositor = Compositor(layers: [Self.layer(outline: true)], fonts: fonts)
        var frame = StraightRGBAImage(width: 640, height: 360)
        // One second of frames draws every digit once, plus the fixed characters: no more.
        for number in 0..<25 {
            try frame.withCanvas { try compositor.composite(onto: $0, at: PresentationTime(value: Int64(number), timescale: 25)) }
        }
        let afterOneSecond = fonts.glyphsRasterized
        // "TC", ":", space and ten digits, each as fill and outline: at most 2 × 14 bitmaps.
        #expect(afterOneSecond <= 28, "\(afterOneSecond) glyphs rasterised")
        for number in 25..<75 {
            try frame.withCanvas { try compositor.composite(onto: $0, at: PresentationTime(value: Int64(number), timescale: 25)) }
        }
        #expect(fonts.glyphsRasterized == afterOneSecond)
    }

    @Test func validationAndWarningsHappenOnceNotPerFrame() throws {
        let warnings = WarningList()
        let timed = LayerSpec(content: .timedText(TimedText { (_: PresentationTime) in "\u{E000} changing" }), sizeFraction: 0.05, opacity: 1,
                              timeline: LayerTimeline(xPercent: 0, yPercent: 0))
        let compositor = Compositor(layers: [timed], fonts: try FontLibrary(), warn: { warnings.append($0) })
        try compositor.validate()
        for second in 0..<4 {
            _ = try CanvasMeasurements.render(compositor, width: 200, height: 100, at: PresentationTime(seconds: Double(second)))
        }
        #expect(warnings.messages.count == 1)
        #expect(warnings.messages.first?.hasPrefix("layer 1: font DejaVu Sans has no glyph for U+E000") == true)
        // A timed text that is empty at some time fails like a fixed one, naming the layer.
        let empty = Compositor(layers: [LayerSpec(content: .timedText(TimedText { (_: PresentationTime) in "" }), sizeFraction: 0.05, opacity: 1,
                                                  timeline: LayerTimeline(xPercent: 0, yPercent: 0))], fonts: try FontLibrary())
        #expect(throws: LayerPreparationError.self) { try empty.validate() }
    }
}

@Suite struct TimedTextFootprintTests {
    @Test func markRectsFollowTheTextOfTheirFrame() throws {
        let growing = TimedText { time in String(repeating: "W", count: 1 + Int(time.seconds)) }
        let layer = LayerSpec(content: .timedText(growing), sizeFraction: 0.05, opacity: 1,
                              timeline: LayerTimeline(xPercent: 0, yPercent: 0))
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary())
        let rects = try [0.0, 3.0].map { try #require(compositor.markRects(at: PresentationTime(seconds: $0), storedWidth: 640, storedHeight: 360)[0]) }
        #expect(rects[1].width > rects[0].width * 3)
        // The same rectangle the drawing covers.
        let frame = try CanvasMeasurements.render(compositor, width: 640, height: 360, at: PresentationTime(seconds: 3))
        let ink = try #require(CanvasMeasurements.inkBounds(frame))
        #expect(ink.x >= rects[1].x && ink.maxX <= rects[1].maxX && ink.y >= rects[1].y && ink.maxY <= rects[1].maxY)
    }
}

/// Redrawing only the glyphs that changed gives the very pixels a full preparation gives.
@Suite struct TimedTextRedrawTests {
    /// A YUV 4:2:0 frame at `time` composited by `compositor`.
    static func yuvFrame(_ compositor: Compositor, at time: PresentationTime, width: Int = 320, height: Int = 180) throws -> [UInt8] {
        var y = [UInt8](repeating: 60, count: width * height), u = [UInt8](repeating: 128, count: width * height / 4)
        var v = [UInt8](repeating: 110, count: width * height / 4)
        try y.withUnsafeMutableBytes { yb in try u.withUnsafeMutableBytes { ub in try v.withUnsafeMutableBytes { vb in
            let canvas = PlanarYUVCanvas(width: width, height: height, luma: .init(base: yb.baseAddress!, bytesPerRow: width),
                                         u: .init(base: ub.baseAddress!, bytesPerRow: width / 2),
                                         v: .init(base: vb.baseAddress!, bytesPerRow: width / 2),
                                         chromaShiftX: 1, chromaShiftY: 1, bitDepth: 8,
                                         matrix: .init(coefficients: .bt709, isFullRange: false))
            try compositor.composite(onto: canvas, at: time)
        } } }
        return y + u + v
    }

    static func layer(_ timed: TimedText, outline: Bool, shadowBlur: Double = 0, opacity: Double = 0.8, x: Double = 37) -> LayerSpec {
        LayerSpec(content: .timedText(timed), sizeFraction: 0.08, color: RGBAColor(red: 250, green: 220, blue: 40), opacity: opacity,
                  outline: outline ? LayerSpec.Outline(widthFraction: 0.006, color: .black) : nil,
                  shadow: LayerSpec.Shadow(offsetXFraction: 0.01, offsetYFraction: 0.01, blurFraction: shadowBlur, color: RGBAColor(argb: 0x80000000)),
                  box: LayerSpec.Box(color: RGBAColor(argb: 0x60203040), paddingFraction: 0.01, radiusFraction: 0.01),
                  timeline: LayerTimeline(xPercent: x, yPercent: 63))
    }

    @Test(arguments: [false, true])
    func redrawnFramesEqualFullyPreparedOnes(outline: Bool) throws {
        let timecode = try Timecode(rateNumerator: 30000, rateDenominator: 1001)
        let timed = TimedText { "TC " + timecode.string(at: $0) }
        let running = Compositor(layers: [Self.layer(timed, outline: outline)], fonts: try FontLibrary())
        for frame in [0, 1, 2, 9, 10, 29, 30, 31, 299, 300, 1799, 1800] {
            let time = PresentationTime(value: Int64(frame) * 1001, timescale: 30000)
            let fresh = Compositor(layers: [Self.layer(timed, outline: outline)], fonts: try FontLibrary())
            #expect(try Self.yuvFrame(running, at: time) == Self.yuvFrame(fresh, at: time), "frame \(frame)")
            #expect(try CanvasMeasurements.render(running, width: 320, height: 180, at: time)
                    == CanvasMeasurements.render(fresh, width: 320, height: 180, at: time), "frame \(frame) RGBA")
        }
        // Every change after the first frame was a redraw in place.
        #expect(running.timedTextRedraws == 11 && running.timedTextFullDraws == 0,
                "\(running.timedTextRedraws) redraws, \(running.timedTextFullDraws) full")
    }

    @Test func textsOfAnotherShapeAndBlurredShadowsArePreparedAfresh() throws {
        // Proportional letters change the layout: every change is a full preparation, still exact.
        let words = ["Ada", "Lovelace", "ill", "WWW", "Ada"]
        let timed = TimedText { words[min(words.count - 1, Int($0.seconds))] }
        let running = Compositor(layers: [Self.layer(timed, outline: true)], fonts: try FontLibrary())
        for second in 0..<words.count {
            let time = PresentationTime(seconds: Double(second))
            let fresh = Compositor(layers: [Self.layer(timed, outline: true)], fonts: try FontLibrary())
            #expect(try Self.yuvFrame(running, at: time) == Self.yuvFrame(fresh, at: time), "\(words[second])")
        }
        // A blurred shadow spreads every change: no redraw in place.
        let timecode = try Timecode(rateNumerator: 25, rateDenominator: 1)
        let blurred = Compositor(layers: [Self.layer(TimedText { timecode.string(at: $0) }, outline: false, shadowBlur: 0.01)],
                                 fonts: try FontLibrary())
        for frame in 0..<5 {
            let time = PresentationTime(value: Int64(frame), timescale: 25)
            let fresh = Compositor(layers: [Self.layer(TimedText { timecode.string(at: $0) }, outline: false, shadowBlur: 0.01)],
                                   fonts: try FontLibrary())
            #expect(try Self.yuvFrame(blurred, at: time) == Self.yuvFrame(fresh, at: time))
        }
        #expect(blurred.timedTextRedraws == 0)
    }
}
