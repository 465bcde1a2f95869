/// SMPTE timecode (HH:MM:SS:FF) of the frame shown at a presentation time, as burned into
/// review copies.
///
/// Frames are counted at the nominal rate (30 for 29.97 fps); 30000/1001 and 60000/1001 fps use
/// drop-frame timecode (written with `;` before the frames), which skips frame numbers 0 and 1
/// (0–3 at 59.94) at the start of every minute except each tenth, so the timecode keeps pace
/// with the clock. The count starts from the input's own start timecode when it has one, and
/// wraps at 24 hours.
public struct Timecode: Sendable, Equatable {
    /// Frames per second, exactly (30000/1001 for 29.97).
    public let rateNumerator: Int64
    public let rateDenominator: Int64
    /// The whole number of frames a timecode second holds (30 for 29.97, 24 for 23.976).
    public let nominalRate: Int64
    public let isDropFrame: Bool
    /// Frames counted before the first frame (the start timecode as a frame count).
    public let startFrame: Int64

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case frameRate(numerator: Int64, denominator: Int64)
        case startTimecode(String)

        public var description: String {
            switch self {
            case .frameRate(let numerator, let denominator):
                "a frame rate of \(numerator)/\(denominator) fps cannot count timecode frames"
            case .startTimecode(let text):
                "start timecode '\(text)' is not HH:MM:SS:FF (or HH:MM:SS;FF) within the frame rate"
            }
        }
    }

    /// Timecode at `numerator`/`denominator` fps, counting from `start` ("01:00:00:00"; `;` or `.`
    /// before the frames marks drop-frame) when given. Drop-frame is used at 29.97 and 59.94 fps
    /// unless a start timecode written with `:` says the source counts without dropping.
    public init(rateNumerator numerator: Int64, rateDenominator denominator: Int64, start: String? = nil) throws {
        guard numerator > 0, denominator > 0, numerator / denominator < 1000 else {
            throw ParseError.frameRate(numerator: numerator, denominator: denominator)
        }
        let divisor = Int64(greatestCommonDivisor(Int128(numerator), Int128(denominator)))
        rateNumerator = numerator / divisor
        rateDenominator = denominator / divisor
        nominalRate = max(1, (rateNumerator + rateDenominator / 2) / rateDenominator)
        let ntscDropRate = rateDenominator == 1001 && (rateNumerator == 30000 || rateNumerator == 60000)
        var drop = ntscDropRate
        var startFrame: Int64 = 0
        if let start {
            let parsed = try Self.parse(start, nominalRate: nominalRate)
            if ntscDropRate { drop = parsed.dropFrameSeparator }
            startFrame = parsed.label
            if drop {
                // In drop-frame the first labels of most minutes do not exist.
                let d = nominalRate / 15, frames = parsed.label % nominalRate, seconds = parsed.label / nominalRate
                if frames < d && seconds % 60 == 0 && (seconds / 60) % 10 != 0 { throw ParseError.startTimecode(start) }
                startFrame = Self.frameCount(ofDropFrameLabel: parsed.label, nominalRate: nominalRate)
            }
        }
        isDropFrame = drop
        self.startFrame = startFrame
    }

    /// The label of the frame shown at `time` (seconds from the first frame): the nearest frame,
    /// so timestamps rounded to milliseconds (Matroska) still land on their frame.
    public func string(at time: PresentationTime) -> String {
        // frame = round(time × rate), exactly: (2·v·num + ts·den) ÷ (2·ts·den), floored.
        let numerator = 2 * Int128(time.value) * Int128(rateNumerator) + Int128(time.timescale) * Int128(rateDenominator)
        let frame = floorDivide(numerator, by: 2 * Int128(time.timescale) * Int128(rateDenominator))
        return label(ofFrame: Int64(clamping: frame))
    }

    /// The label of frame `index` (0 is the first frame of the input).
    public func label(ofFrame index: Int64) -> String {
        let perDay = 24 * 3600 * nominalRate - (isDropFrame ? 144 * 9 * droppedPerMinute : 0)
        var count = (startFrame + max(0, index)) % perDay
        if isDropFrame {
            // Skip the labels drop-frame never uses: D per minute, except every tenth minute.
            let d = droppedPerMinute
            let perTenMinutes = 600 * nominalRate - 9 * d, perMinute = 60 * nominalRate - d
            let tens = count / perTenMinutes, rest = count % perTenMinutes
            count += 9 * d * tens + (rest > d ? d * ((rest - d) / perMinute) : 0)
        }
        let frames = count % nominalRate, seconds = count / nominalRate
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let frameDigits = nominalRate > 100 ? String(frames) : two(frames)
        return "\(two(seconds / 3600 % 24)):\(two(seconds / 60 % 60)):\(two(seconds % 60))\(isDropFrame ? ";" : ":")\(frameDigits)"
    }

    private var droppedPerMinute: Int64 { nominalRate / 15 }

    /// A drop-frame label's frame number (as if no labels were dropped) to the count of frames before it.
    private static func frameCount(ofDropFrameLabel label: Int64, nominalRate: Int64) -> Int64 {
        let d = nominalRate / 15
        let minutes = label / (60 * nominalRate)
        return label - d * (minutes - minutes / 10)
    }

    /// "HH:MM:SS:FF" as a label number (frames counted as if none were dropped), and whether the
    /// separator before the frames was a drop-frame one (`;`, `.` or `,`).
    private static func parse(_ text: String, nominalRate: Int64) throws -> (label: Int64, dropFrameSeparator: Bool) {
        let characters = Array(text.filter { $0 != " " })
        guard let last = characters.lastIndex(where: { ":;.,".contains($0) }) else { throw ParseError.startTimecode(text) }
        let fields = String(characters[..<last]).split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            + [String(characters[(last + 1)...])]
        let numbers = fields.map { field in field.count <= 3 && field.allSatisfy(\.isASCII) ? Int64(field) : nil }
        guard numbers.count == 4, let hours = numbers[0], let minutes = numbers[1], let seconds = numbers[2], let frames = numbers[3],
              hours >= 0, hours < 24, minutes >= 0, minutes < 60, seconds >= 0, seconds < 60, frames >= 0, frames < nominalRate else {
            throw ParseError.startTimecode(text)
        }
        return (((hours * 60 + minutes) * 60 + seconds) * nominalRate + frames, characters[last] != ":")
    }
}

extension PresentationTime {
    /// Seconds with exactly `decimals` digits after the point, rounded half up from the exact
    /// value ("12.345" for `decimals` 3), for `{pts}` burn-ins: the same time always reads the same.
    public func secondsText(decimals: Int) -> String {
        precondition((0...9).contains(decimals), "0…9 decimals")
        var scale: Int128 = 1
        for _ in 0..<decimals { scale *= 10 }
        let units = floorDivide(2 * Int128(value) * scale + Int128(timescale), by: 2 * Int128(timescale))
        let negative = units < 0, magnitude = negative ? -units : units
        let whole = magnitude / scale, fraction = magnitude % scale
        var digits = String(fraction)
        digits = String(repeating: "0", count: max(0, decimals - digits.count)) + digits
        return (negative ? "-" : "") + String(whole) + (decimals > 0 ? "." + digits : "")
    }
}
