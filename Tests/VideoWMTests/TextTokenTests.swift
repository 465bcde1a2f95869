import Animation
import Foundation
import Overlay
import Testing
@testable import VideoWM

/// `{timecode}`, `{pts}`, `{date}` and `{time}`: their values, and how a config's text becomes a
/// fixed or a per-frame text with them.
@Suite("text tokens")
struct TextTokenTests {
    static let ntsc = try! Timecode(rateNumerator: 30000, rateDenominator: 1001)

    /// The text of `spec` at `seconds` on a video with `timecode` (fixed texts ignore the frame).
    static func text(of spec: LayerSpec, at seconds: Double, timecode: Timecode? = ntsc) -> String? {
        switch spec.content {
        case .text(let text): text
        case .timedText(let timed): timed.text(TimedText.Frame(time: PresentationTime(seconds: seconds), timecode: timecode))
        default: nil
        }
    }

    static func specs(_ text: String, variables: [String: String] = [:],
                      job: [String: String] = ["date": "2024-05-01", "time": "14:03:59"]) throws -> [LayerSpec] {
        let escaped = text.replacingOccurrences(of: "\"", with: "\\\"")
        return try parse(#"{ "watermarks": [ { "text": "\#(escaped)" } ] }"#)
            .layerSpecs(variables: variables, images: ImageCache(), jobValues: job)
    }

    @Test func timecodeAndPtsOfAFrame() {
        // 29.97 fps: frame 30 is shown at 1.001 s and is 00:00:01;00 in drop-frame.
        let frame = TextTokens.frameValues(TimedText.Frame(time: PresentationTime(seconds: 1.001), timecode: Self.ntsc))
        #expect(frame == ["timecode": "00:00:01;00", "pts": "1.001"])
        let before = TextTokens.frameValues(TimedText.Frame(time: PresentationTime(seconds: 0.968), timecode: Self.ntsc))
        #expect(before["timecode"] == "00:00:00;29")
        // The first frame of minute 1 skips labels ;00 and ;01.
        let minute = TextTokens.frameValues(TimedText.Frame(time: PresentationTime(seconds: 1800 * 1.001 / 30), timecode: Self.ntsc))
        #expect(minute["timecode"] == "00:01:00;02")
        // A still: whole seconds, frames 00; pts with three decimals, rounded.
        let still = TextTokens.frameValues(TimedText.Frame(time: PresentationTime(seconds: 12.3456)))
        #expect(still == ["timecode": "00:00:12:00", "pts": "12.346"])
    }

    @Test func dateAndTimeAreTheJobsStartInLocalTime() throws {
        let parts = DateComponents(year: 2024, month: 5, day: 1, hour: 9, minute: 7, second: 3)
        let start = try #require(Calendar.current.date(from: parts))
        #expect(TextTokens.jobValues(start: start) == ["date": "2024-05-01", "time": "09:07:03"])
        // The C library's local time agrees with Foundation's in winter and summer, up to the last second of a year.
        for (parts, expected) in [(DateComponents(year: 2023, month: 12, day: 31, hour: 23, minute: 59, second: 59), ["date": "2023-12-31", "time": "23:59:59"]),
                                  (DateComponents(year: 2024, month: 7, day: 14, hour: 0, minute: 0, second: 0), ["date": "2024-07-14", "time": "00:00:00"])] {
            let date = try #require(Calendar.current.date(from: parts))
            #expect(TextTokens.jobValues(start: date.addingTimeInterval(0.75)) == expected)
        }
        // Fixed for the whole run: two calls agree.
        #expect(TextTokens.jobValues() == TextTokens.jobValues())
    }

    @Test func aTextWithPerFrameTokensIsEvaluatedPerFrame() throws {
        let spec = try #require(try Self.specs("{email} {timecode} {pts}", variables: ["email": "ada@example.com"]).first)
        guard case .timedText = spec.content else { Issue.record("not a timed text: \(spec.content)"); return }
        #expect(Self.text(of: spec, at: 1.001) == "ada@example.com 00:00:01;00 1.001")
        #expect(Self.text(of: spec, at: 2.002) == "ada@example.com 00:00:02;00 2.002")
        // Starting from the input's timecode tag.
        let tagged = try Timecode(rateNumerator: 25, rateDenominator: 1, start: "10:00:00:00")
        #expect(Self.text(of: spec, at: 0.04, timecode: tagged) == "ada@example.com 10:00:00:01 0.040")
    }

    @Test func dateAndTimeAreFixedAndVariablesOverrideEveryToken() throws {
        let dated = try #require(try Self.specs("{date} {time}").first)
        guard case .text("2024-05-01 14:03:59") = dated.content else { Issue.record("\(dated.content)"); return }
        let overridden = try #require(try Self.specs("{date}", variables: ["date": "review"]).first)
        guard case .text("review") = overridden.content else { Issue.record("\(overridden.content)"); return }
        // A --var named like a per-frame token makes the text fixed.
        let fixed = try #require(try Self.specs("{timecode}", variables: ["timecode": "TC"]).first)
        guard case .text("TC") = fixed.content else { Issue.record("\(fixed.content)"); return }
        // Literal braces stay literal.
        let literal = try #require(try Self.specs("{{timecode}}").first)
        guard case .text("{timecode}") = literal.content else { Issue.record("\(literal.content)"); return }
    }

    @Test func tokensAreKnownPlaceholdersButOthersStillNeedAValue() throws {
        #expect(throws: Never.self) { try parse(#"{ "watermarks": [ { "text": "{timecode} {pts} {date} {time}" } ] }"#).checkVariables([:]) }
        let error = #expect(throws: ConfigError.self) { try parse(#"{ "watermarks": [ { "text": "{timecod}" } ] }"#).checkVariables([:]) }
        #expect(error?.description.contains("unknown placeholder '{timecod}'") == true, "\(String(describing: error))")
    }

    @Test func aRandomPathDoesNotDependOnTheChangingText() throws {
        let config = #"{ "watermarks": [ { "text": "{timecode}", "animation": { "type": "random", "duration": 1000 } } ] }"#
        let spec = try #require(try parse(config).layerSpecs(variables: [:], images: ImageCache()).first)
        let same = try #require(try parse(config).layerSpecs(variables: [:], images: ImageCache()).first)
        let other = try #require(try parse(config.replacingOccurrences(of: "{timecode}", with: "{pts}"))
            .layerSpecs(variables: [:], images: ImageCache()).first)
        let times = (0..<20).map { PresentationTime(seconds: Double($0) * 0.7) }
        let path = times.map { spec.timeline.state(at: $0) }
        #expect(path == times.map { same.timeline.state(at: $0) })
        // The seed is the text as written, so another token gives another path.
        #expect(path != times.map { other.timeline.state(at: $0) })
    }
}
