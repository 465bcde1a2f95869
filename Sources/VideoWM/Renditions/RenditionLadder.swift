import Overlay

/// One step of `--ladder`: a picture size named by its lines ("720") and, optionally, the
/// average video bit rate to encode it at.
public struct LadderRung: Sendable, Hashable, CustomStringConvertible {
    /// The shorter side of the displayed picture: the height of a landscape video, the width
    /// of a portrait one (a phone's 1080×1920 video is "1080p", as every platform labels it).
    public var lines: Int
    /// Bits per second; nil takes the standard ladder's rate for the picture (`StandardBitRates`).
    public var bitRate: Int?

    /// A rung of `lines` lines, at `bitRate` or the standard rate.
    public init(lines: Int, bitRate: Int? = nil) {
        self.lines = lines
        self.bitRate = bitRate
    }

    public var description: String { bitRate.map { "\(lines):\(LadderRequest.rateText($0))" } ?? "\(lines)" }
}

/// What `--ladder` (or a lecture's `"ladder"`) asks for: the standard ladder, or an explicit list.
public enum LadderRequest: Sendable, Hashable, CustomStringConvertible {
    /// The input's own size on top (at most 1080 lines), then each of 720, 540 and 360 lines
    /// below it by more than an eighth; rates from `StandardBitRates`.
    case automatic
    /// Rungs as given, each at most once, tallest first once resolved.
    case explicit([LadderRung])
    /// The input's own size alone ("input"): what `--subtitles` without `--ladder` makes.
    case input

    /// The rungs `auto` chooses from, below the input's own size.
    public static let automaticLines = [1080, 720, 540, 360]
    /// The lines a rung may have.
    public static let linesRange = 16...4320
    /// The bit rates a rung may ask for, in bits per second.
    public static let bitRateRange = 16_000...200_000_000
    /// The most rungs a ladder may have.
    public static let maximumRungs = 8

    /// Why a ladder's text cannot be read; says what was expected, without naming where the
    /// text came from (the caller adds the option or the config field).
    public struct SyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What is wrong, in a phrase.
        public var problem: String
        public var description: String { problem }
    }

    /// "auto", "input", or comma-separated `LINES[:RATE]` items: `1080:5M,720:2800k,360`. A rate is
    /// bits per second with an optional k (×1000) or M (×1 000 000) suffix.
    public init(parsing text: String) throws(SyntaxError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.lowercased() == "auto" {
            self = .automatic
            return
        }
        if trimmed.lowercased() == "input" {
            self = .input
            return
        }
        let items = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !trimmed.isEmpty, !items.contains(where: \.isEmpty) else {
            throw SyntaxError(problem: "takes auto, input or heights with optional bit rates, e.g. 1080:5M,720:2800k,360; got '\(text)'")
        }
        guard items.count <= Self.maximumRungs else {
            throw SyntaxError(problem: "takes at most \(Self.maximumRungs) renditions, got \(items.count)")
        }
        var rungs: [LadderRung] = []
        for item in items {
            let parts = item.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard parts.count <= 2, let lines = Int(parts[0]), parts[0].allSatisfy(\.isASCII), Self.linesRange.contains(lines) else {
                throw SyntaxError(problem: "'\(item)' is not HEIGHT or HEIGHT:RATE with a height of \(Self.linesRange.lowerBound)…\(Self.linesRange.upperBound) lines (e.g. 720 or 720:2800k)")
            }
            var rate: Int?
            if parts.count == 2 {
                guard let value = Self.bitRate(parts[1]), Self.bitRateRange.contains(value) else {
                    throw SyntaxError(problem: "'\(item)': the rate must be like 2800k or 5M, 16k…200M, got '\(parts[1])'")
                }
                rate = value
            }
            guard !rungs.contains(where: { $0.lines == lines }) else {
                throw SyntaxError(problem: "lists \(lines) twice")
            }
            rungs.append(LadderRung(lines: lines, bitRate: rate))
        }
        self = .explicit(rungs)
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .input: "input"
        case .explicit(let rungs): rungs.map(\.description).joined(separator: ",")
        }
    }

    /// "2800k", "5M", "1500000" → bits per second.
    static func bitRate(_ text: String) -> Int? {
        let lower = text.lowercased()
        var digits = Substring(lower)
        var multiplier = 1.0
        if lower.hasSuffix("k") { multiplier = 1e3; digits = digits.dropLast() }
        else if lower.hasSuffix("m") { multiplier = 1e6; digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(digits),
              value > 0, value * multiplier <= 1e10 else { return nil }
        return Int((value * multiplier).rounded())
    }

    static func rateText(_ bitsPerSecond: Int) -> String {
        if bitsPerSecond % 1_000_000 == 0 { return "\(bitsPerSecond / 1_000_000)M" }
        if bitsPerSecond % 1000 == 0 { return "\(bitsPerSecond / 1000)k" }
        return "\(bitsPerSecond)"
    }
}

/// The video the ladder is made from, as shown: what sizes and rates are chosen from.
public struct LadderSource: Sendable, Equatable {
    /// The stored picture (as coded), its pixels' shape and the rotation players apply.
    public var storedWidth: Int
    /// The stored picture's height.
    public var storedHeight: Int
    /// The pixels' shape (1:1 unless anamorphic).
    public var pixelAspect: PixelAspect
    /// The rotation players apply.
    public var rotation: DisplayRotation

    /// The source as stored, with its pixel shape and rotation.
    public init(storedWidth: Int, storedHeight: Int, pixelAspect: PixelAspect = PixelAspect(numerator: 1, denominator: 1),
                rotation: DisplayRotation = .upright) {
        precondition(storedWidth > 0 && storedHeight > 0)
        self.storedWidth = storedWidth
        self.storedHeight = storedHeight
        self.pixelAspect = pixelAspect
        self.rotation = rotation
    }

    /// The picture as a person sees it: anamorphic pixels widened, rotation applied.
    public var displaySize: (width: Int, height: Int) {
        let shownWidth = max(1, Int((Double(storedWidth) * Double(pixelAspect.numerator) / Double(pixelAspect.denominator)).rounded()))
        return rotation.displaySize(storedWidth: shownWidth, storedHeight: storedHeight)
    }

    /// The shorter displayed side: the ladder's measure of this picture.
    public var lines: Int { min(displaySize.width, displaySize.height) }
}

/// One rendition of a ladder, resolved against the source.
public struct PlannedRendition: Sendable, Equatable {
    /// "720p": for file names and the NAME shown by players.
    public var name: String { "\(lines)p" }
    /// The shorter displayed side.
    public var lines: Int
    /// The displayed size (square pixels), what RESOLUTION declares.
    public var width: Int
    /// The displayed height.
    public var height: Int
    /// The size an encoder gets, in the stored orientation (the rotation is kept as metadata).
    public var storedWidth: Int
    /// The stored height an encoder gets.
    public var storedHeight: Int
    /// The average bit rate to encode at.
    public var bitRate: Int
    /// The rate was given (`720:2800k`) rather than taken from the standard table.
    public var bitRateGiven: Bool
    /// The rendition is the source's own picture: same size, no rate asked for. Where the
    /// codec and pixel format fit too, it is the input's packets wherever no mark shows.
    public var isSourcePicture: Bool
}

/// A ladder resolved against its source: the renditions, tallest first, and what was changed
/// from the request (one line each, for the user).
public struct RenditionLadder: Sendable, Equatable {
    /// The renditions, tallest first.
    public var renditions: [PlannedRendition]
    /// What was changed from the request, one line each.
    public var notices: [String]

    /// - Parameters:
    ///   - request: `--ladder`'s value.
    ///   - source: the input video.
    ///   - codec: the codec the renditions are encoded with (its rates differ).
    ///   - subject: how notices name the request ("--ladder", a lecture's field).
    public init(request: LadderRequest, source: LadderSource, codec: StandardBitRates.Codec, subject: String = "--ladder") {
        let sourceLines = source.lines
        var wanted: [LadderRung] = []
        var notices: [String] = []
        switch request {
        case .automatic:
            let top = min(sourceLines, LadderRequest.automaticLines[0])
            wanted.append(LadderRung(lines: top))
            for lines in LadderRequest.automaticLines where lines * 8 < top * 7 {
                wanted.append(LadderRung(lines: lines))
            }
        case .input:
            wanted.append(LadderRung(lines: sourceLines))
        case .explicit(let rungs):
            let above = rungs.filter { $0.lines > sourceLines }
            wanted = rungs.filter { $0.lines <= sourceLines }
            if !above.isEmpty {
                // A picture is never enlarged: the request's top becomes the source's own size,
                // served from the source's packets (so its rate, meant for a larger picture, goes).
                if !wanted.contains(where: { $0.lines == sourceLines }) { wanted.append(LadderRung(lines: sourceLines)) }
                let names = above.map { "\($0.lines)" }.joined(separator: ", ")
                notices.append("\(subject): \(names) \(above.count == 1 ? "is" : "are") taller than the input (\(sourceLines) lines), which is never enlarged; the top rendition is the input's \(sourceLines) lines")
            }
        }
        wanted.sort { $0.lines > $1.lines }
        renditions = wanted.map { rung in
            let size = Self.size(of: rung.lines, source: source)
            let standard = StandardBitRates.rate(width: size.width, height: size.height, codec: codec)
            // An odd rung (301) is sized even (300): named by the lines it has.
            return PlannedRendition(lines: rung.lines == sourceLines ? rung.lines : min(size.width, size.height), width: size.width, height: size.height,
                                    storedWidth: source.rotation.swapsAxes ? size.height : size.width,
                                    storedHeight: source.rotation.swapsAxes ? size.width : size.height,
                                    bitRate: rung.bitRate ?? standard, bitRateGiven: rung.bitRate != nil,
                                    isSourcePicture: rung.lines == sourceLines && rung.bitRate == nil && Self.showsStoredPixels(source))
        }
        self.notices = notices
    }

    /// The displayed size of a rung: its shorter side `lines`, the longer following the shape,
    /// both even (4:2:0), as `--height`/`--width` size a picture. The source's own lines keep
    /// the source's displayed size.
    static func size(of lines: Int, source: LadderSource) -> (width: Int, height: Int) {
        let display = source.displaySize
        guard lines != source.lines else { return display }
        let request: ScaleRequest = display.width >= display.height ? .height(lines) : .width(lines)
        return request.outputSize(width: display.width, height: display.height, unit: 2, upscale: false) ?? display
    }

    /// Whether the source is shown as stored (square pixels): an anamorphic source's own size
    /// still needs resampling, so no rendition is its packets.
    private static func showsStoredPixels(_ source: LadderSource) -> Bool {
        source.pixelAspect == PixelAspect(numerator: 1, denominator: 1)
    }
}

/// The standard average video bit rates: Apple's HLS Authoring Specification for Apple
/// Devices, item 1.25 (H.264/AVC and HEVC tables for 16:9 pictures), taking for each picture
/// size the first rate Apple lists at it.
///
/// Apple lists rates for 16:9 sizes; any other picture gets the rate of its pixel count,
/// interpolated linearly between the listed sizes' pixel counts (a 4:3 960×720 picture has
/// three quarters of 1280×720's pixels and falls between 540 and 720 lines), beyond the
/// largest listed size at its bits per pixel, and below the smallest at the smallest's bits
/// per pixel (at least 32 kb/s). The tables are for pictures up to 30 frames a second; give
/// explicit rates for 50 and 60 fps.
public enum StandardBitRates {
    /// Which table a codec's rates come from.
    public enum Codec: Sendable, Equatable {
        /// H.264.
        case h264
        /// HEVC; also used for VP9 and AV1, whose efficiency is close to HEVC's.
        case hevcClass
    }

    /// (width, height, kb/s), Apple's item 1.25.
    public static let h264: [(width: Int, height: Int, kilobits: Int)] = [
        (416, 234, 145), (640, 360, 365), (768, 432, 730), (960, 540, 2000), (1280, 720, 3000), (1920, 1080, 6000),
    ]
    /// (width, height, kb/s), Apple's HEVC table.
    public static let hevc: [(width: Int, height: Int, kilobits: Int)] = [
        (640, 360, 145), (768, 432, 300), (960, 540, 600), (1280, 720, 2400), (1920, 1080, 4500),
        (2560, 1440, 8100), (3840, 2160, 11600),
    ]

    /// Bits per second for a `width`×`height` picture, rounded to whole kb/s.
    public static func rate(width: Int, height: Int, codec: Codec) -> Int {
        let table = codec == .h264 ? h264 : hevc
        let pixels = Double(width * height)
        let points = table.map { (pixels: Double($0.width * $0.height), kilobits: Double($0.kilobits)) }
        let kilobits: Double
        if pixels <= points[0].pixels {
            kilobits = max(32, points[0].kilobits * pixels / points[0].pixels)
        } else if pixels >= points[points.count - 1].pixels {
            let last = points[points.count - 1]
            kilobits = last.kilobits * pixels / last.pixels
        } else {
            // Between the first and the last point, so some point lies at or above it.
            let upper = points.firstIndex { $0.pixels >= pixels } ?? points.count - 1
            let a = points[upper - 1], b = points[upper]
            kilobits = a.kilobits + (b.kilobits - a.kilobits) * (pixels - a.pixels) / (b.pixels - a.pixels)
        }
        return Int(kilobits.rounded()) * 1000
    }
}
