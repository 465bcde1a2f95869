import Animation
import Foundation
import Testing
@testable import Overlay

/// Tiling's contract: `spacing` is drawn as given; without one the pattern is dense and
/// leaves no square a tenth of the short side wide without mark pixels, at any position,
/// angle and frame shape; and one warning, stating the size, appears exactly when a pattern
/// leaves a clean square wider than that. Squares are measured with an independent
/// summed-area table (`CanvasMeasurements.cleanSquare`), not with the compositor's own check.
@Suite("tiling")
struct TilingTests {
    static let angles: [Double] = [0, -30, 45, 90]
    static let shapes: [(width: Int, height: Int)] = [(640, 360), (360, 640), (1600, 340)]

    static func tiled(_ content: LayerSpec.Content, size: Double = 0.04, angle: Double, spacing: Double?,
                      opacity: Double = 0.15) -> LayerSpec {
        LayerSpec(content: content, sizeFraction: size, opacity: opacity,
                  tile: TilePattern(angleDegrees: angle, spacingFraction: spacing),
                  timeline: LayerTimeline(xPercent: 0, yPercent: 0))
    }

    static func render(_ layer: LayerSpec, width: Int, height: Int, warnings: WarningList? = nil) throws -> StraightRGBAImage {
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary(), warn: { warnings?.append($0) })
        return try CanvasMeasurements.render(compositor, width: width, height: height)
    }

    static func cleanSquare(_ layer: LayerSpec, width: Int, height: Int, warnings: WarningList? = nil) throws -> (x: Int, y: Int)? {
        let frame = try render(layer, width: width, height: height, warnings: warnings)
        return CanvasMeasurements.cleanSquare(in: frame, side: min(width, height) / 10)
    }

    /// The side of the largest clean square, by bisection over the summed-area check (a clean
    /// square of side s holds one of every smaller side).
    static func largestCleanSquare(in frame: StraightRGBAImage) -> Int {
        var low = 0, high = min(frame.width, frame.height)
        while low < high {
            let middle = (low + high + 1) / 2
            if CanvasMeasurements.cleanSquare(in: frame, side: middle) != nil { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The dense default (no spacing) with the contract's example text (docs/design/contract.md) at four angles on landscape,
    /// portrait and panorama frames.
    @Test(arguments: angles)
    func theDenseDefaultLeavesNoCleanSquare(angle: Double) throws {
        let layer = Self.tiled(.text("CONFIDENTIAL"), angle: angle, spacing: nil)
        for shape in Self.shapes {
            let warnings = WarningList()
            let clean = try Self.cleanSquare(layer, width: shape.width, height: shape.height, warnings: warnings)
            #expect(clean == nil, "\(shape.width)×\(shape.height) at \(angle)°: the square at \(String(describing: clean)) is clean")
            #expect(warnings.messages.isEmpty)
        }
    }

    /// A logo tile and a two-line text whose short second line leaves room beside it inside
    /// the mark's own box: the dense pattern closes its gaps until no square is clean.
    @Test(arguments: [-30.0, 90.0])
    func denseLogosAndCentredLinesLeaveNoCleanSquare(angle: Double) throws {
        let logo = Self.tiled(.image(checkerLogo(width: 120, height: 60), name: "logo"), size: 0.16, angle: angle, spacing: nil, opacity: 1)
        let lines = Self.tiled(.text("INTERNAL\nDRAFT"), size: 0.05, angle: angle, spacing: nil)
        for layer in [logo, lines] {
            let warnings = WarningList()
            let clean = try Self.cleanSquare(layer, width: 640, height: 360, warnings: warnings)
            #expect(clean == nil, "at \(angle)°: the square at \(String(describing: clean)) is clean")
            #expect(warnings.messages.isEmpty)
        }
    }

    @Test func spacingIsTheGapAsGiven() {
        #expect(TilePattern(angleDegrees: 0, spacingFraction: 0.12).gapFraction == 0.12)
        #expect(TilePattern(angleDegrees: 0, spacingFraction: 0.3).gapFraction == 0.3)
        #expect(TilePattern(angleDegrees: 0, spacingFraction: 0.03).gapFraction == 0.03)
        #expect(TilePattern(angleDegrees: 0, spacingFraction: -1).gapFraction == 0)
        #expect(TilePattern(angleDegrees: 0).gapFraction == TilePattern.maximumGapFraction)
        #expect(TilePattern(angleDegrees: 0).isDense)
        #expect(TilePattern(angleDegrees: 0, spacingFraction: .nan).gapFraction == TilePattern.maximumGapFraction)
    }

    /// At 0° the gap between rows, and between marks along a row, is the spacing: a 10×10
    /// opaque square tiled on a 200-px short side leaves 10-px gaps at 0.05, 24 at 0.12 and
    /// 60 at 0.3 — so 0.12 and 0.3 are different patterns, each spaced as asked.
    @Test(arguments: [(0.05, 10), (0.12, 24), (0.3, 60)])
    func gapIsTheSpacing(spacing: Double, gapPixels: Int) {
        let square = StraightRGBAImage(width: 10, height: 10, fill: .white).premultiplied()
        let rendering = TilePattern(angleDegrees: 0, spacingFraction: spacing)
            .renderCoveringFrame(tile: square, frameWidth: 400, frameHeight: 200)
        let image = rendering.image
        #expect(rendering.gapFraction == spacing)
        /// Lengths of the runs of `false` strictly inside `values` (the runs at either end may be cut by the frame).
        func innerGaps(_ values: [Bool]) -> [Int] {
            var runs: [Int] = [], run = 0, seenInk = false
            for inked in values {
                if inked { if seenInk && run > 0 { runs.append(run) }; run = 0; seenInk = true } else { run += 1 }
            }
            return runs
        }
        let rowsWithInk = (0..<200).map { y in (0..<400).contains { image.pixel(x: $0, y: y).alpha != 0 } }
        let rowGaps = innerGaps(rowsWithInk)
        #expect(!rowGaps.isEmpty && rowGaps.allSatisfy { $0 == gapPixels }, "\(rowGaps)")
        let firstInkedRow = rowsWithInk.firstIndex(of: true)!
        let alongRow = innerGaps((0..<400).map { image.pixel(x: $0, y: firstInkedRow).alpha != 0 })
        #expect(!alongRow.isEmpty && alongRow.allSatisfy { $0 == gapPixels }, "\(alongRow)")
    }

    /// The contract's example layer ("CONFIDENTIAL", spacing 0.12) and a sparse 0.3: drawn as given,
    /// different from each other, and warned about exactly when the frame holds a clean
    /// square wider than a tenth of the short side, with that square's size in the warning.
    @Test(arguments: [0.03, 0.12, 0.3])
    func theWarningNamesTheCleanSquareExactlyWhenOneIsTooWide(spacing: Double) throws {
        for angle in [-30.0, 0] {
            let warnings = WarningList()
            let frame = try Self.render(Self.tiled(.text("CONFIDENTIAL"), angle: angle, spacing: spacing), width: 640, height: 360,
                                        warnings: warnings)
            let largest = Self.largestCleanSquare(in: frame)
            let tooWide = largest > 36
            #expect(warnings.messages.count == (tooWide ? 1 : 0), "\(spacing) at \(angle)°: largest clean square \(largest) px, \(warnings.messages)")
            if tooWide {
                #expect(warnings.messages.first?.contains("up to \(largest) px") == true, "\(warnings.messages)")
            }
            if spacing >= 0.12 { #expect(tooWide, "\(spacing) at \(angle)°: largest clean square \(largest) px") }
        }
        let dense = try Self.render(Self.tiled(.text("CONFIDENTIAL"), angle: -30, spacing: 0.12), width: 640, height: 360)
        let sparse = try Self.render(Self.tiled(.text("CONFIDENTIAL"), angle: -30, spacing: 0.3), width: 640, height: 360)
        #expect(dense != sparse)
    }

    @Test func largestTransparentSquareAgreesWithTheSummedAreaTable() {
        var frame = StraightRGBAImage(width: 50, height: 40, fill: RGBAColor(red: 1, green: 1, blue: 1, alpha: 1))
        // A clean 12×12 hole at (30, 20), and a clean 12×5 strip that holds no larger square.
        for y in 20..<32 { for x in 30..<42 { frame.pixels[(y * 50 + x) * 4 + 3] = 0 } }
        for y in 2..<7 { for x in 2..<14 { frame.pixels[(y * 50 + x) * 4 + 3] = 0 } }
        let premultipliedAlpha = PremultipliedRGBAImage(width: 50, height: 40, pixels: frame.pixels)
        #expect(premultipliedAlpha.largestTransparentSquare() == 12)
        #expect(Self.largestCleanSquare(in: frame) == 12)
        #expect(CanvasMeasurements.cleanSquare(in: frame, side: 12).map { [$0.x, $0.y] } == [30, 20])
        #expect(CanvasMeasurements.cleanSquare(in: frame, side: 13) == nil)
        #expect(PremultipliedRGBAImage(width: 7, height: 3).largestTransparentSquare() == 3)
        #expect(PremultipliedRGBAImage(width: 0, height: 0).largestTransparentSquare() == 0)
    }

    /// A mark that is mostly transparent leaves clean squares even with touching tiles: one warning per frame size.
    @Test func aDenseMarkWithWideHolesOfItsOwnWarnsOncePerFrameSize() throws {
        var dot = StraightRGBAImage(width: 40, height: 40)
        for y in 0..<4 { for x in 0..<4 { dot.pixels[(y * 40 + x) * 4 + 3] = 255 } }
        let layer = Self.tiled(.image(dot, name: "dot"), size: 0.5, angle: 0, spacing: nil, opacity: 1)
        let warnings = WarningList()
        let compositor = Compositor(layers: [layer], fonts: try FontLibrary(), warn: { warnings.append($0) })
        for _ in 0..<3 { _ = try CanvasMeasurements.render(compositor, width: 200, height: 100) }
        _ = try CanvasMeasurements.render(compositor, width: 100, height: 200)
        #expect(warnings.messages.filter { $0.contains("clean square") }.count == 2)
    }

    /// How `TilePattern.maximumGapFraction` was chosen: sweeps the angle in 7.5° steps for
    /// several marks at a given gap (without the cap). Opt-in, it takes minutes:
    /// `TILE_SWEEP=0.07 swift test --filter gapSweep`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TILE_SWEEP"] != nil))
    func gapSweep() throws {
        let gap = Double(ProcessInfo.processInfo.environment["TILE_SWEEP"] ?? "") ?? TilePattern.maximumGapFraction
        let fonts = try FontLibrary()
        let marks: [(String, LayerSpec.Content, Double)] = [
            ("CONFIDENTIAL", .text("CONFIDENTIAL"), 0.04), ("sentence", .text("Confidential copy — do not share"), 0.04),
            ("e-mail", .text("ada.lovelace@example.com"), 0.03), ("X", .text("X"), 0.02),
            ("square logo", .image(checkerLogo(width: 64, height: 64), name: "l"), 0.16),
            ("wide logo", .image(checkerLogo(width: 200, height: 20), name: "w"), 0.2),
        ]
        var failures: [String] = []
        for (name, content, size) in marks {
            for angle in stride(from: -90.0, through: 90.0, by: 7.5) {
                let layer = LayerSpec(content: content, sizeFraction: size, opacity: 1, timeline: LayerTimeline(xPercent: 0, yPercent: 0))
                let sprite = try Compositor(layers: [layer], fonts: fonts).makeSprite(layer, displayWidth: 480, displayHeight: 270, warn: { _ in })
                // The gap as given, bypassing both the cap and `renderCoveringFrame`'s narrowing.
                let image = TilePattern(angleDegrees: angle, spacingFraction: gap)
                    .render(tile: sprite.image, frameWidth: 480, frameHeight: 270, gapFraction: gap)
                let frame = StraightRGBAImage(width: 480, height: 270, pixels: image.pixels)
                if let clean = CanvasMeasurements.cleanSquare(in: frame, side: 27) { failures.append("\(name) at \(angle)°: \(clean)") }
            }
        }
        print("gap \(gap): \(failures.count) failures \(failures)")
    }
}

/// Collects warnings from a compositor (which may call from any test thread).
final class WarningList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    var messages: [String] { lock.lock(); defer { lock.unlock() }; return items }
    func append(_ message: String) { lock.lock(); items.append(message); lock.unlock() }
}
