import Animation
import Foundation
import Overlay
import Testing
@testable import VideoWM

/// Collects warnings for inspection.
final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    var messages: [String] { lock.lock(); defer { lock.unlock() }; return items }
    var handler: WarningHandler { { [self] m in lock.lock(); items.append(m); lock.unlock() } }
}

func parse(_ json: String, warnings: WarningLog = WarningLog()) throws -> WatermarkConfig {
    try WatermarkConfig.parse(Data(json.utf8), file: "test.json", baseDirectory: "/configs", warn: warnings.handler)
}

func configError(_ json: String) -> ConfigError? {
    do {
        _ = try parse(json)
        return nil
    } catch let e as ConfigError {
        return e
    } catch {
        return nil
    }
}

@Suite("config")
struct ConfigTests {
    @Test func defaultsFollowTheSpec() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "hi" }, { "image": "logo.png" } ] }"#)
        let text = config.layers[0], image = config.layers[1]
        #expect(text.sizeFraction == 0.04 && text.opacity == 0.3 && text.xPercent == 0 && text.yPercent == 0)
        #expect(image.sizeFraction == 0.16 && image.opacity == 1.0 && image.xPercent == 92 && image.yPercent == 88)
        #expect(text.color == .white && text.insetFraction == 0.03 && text.maxWidthFraction == 0.9)
        #expect(text.font == .family("DejaVu Sans"))
        guard case .image(let path) = image.content else { Issue.record("not an image"); return }
        #expect(path == "/configs/logo.png")
    }

    @Test func anchorsAreShorthandForPercentages() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "a", "anchor": "bottom-right" }, { "text": "b", "anchor": "top", "y": 20 } ] }"#)
        #expect(config.layers[0].xPercent == 100 && config.layers[0].yPercent == 100)
        #expect(config.layers[1].xPercent == 50 && config.layers[1].yPercent == 20)
    }

    @Test(arguments: [
        ("\"#F00\"", RGBAColor(red: 255, green: 0, blue: 0)),
        ("\"#00FF00\"", RGBAColor(red: 0, green: 255, blue: 0)),
        ("\"#800000FF\"", RGBAColor(red: 0, green: 0, blue: 255, alpha: 128)),
        ("4294901760", RGBAColor(red: 255, green: 0, blue: 0)),
    ])
    func colorForms(json: String, expected: RGBAColor) throws {
        let config = try parse(#"{ "watermarks": [ { "text": "a", "color": \#(json) } ] }"#)
        #expect(config.layers[0].color == expected)
    }

    @Test func errorsNameTheFileAndJSONPath() {
        let cases: [(String, String)] = [
            (#"{ "watermarks": [ { "text": "a" }, { "text": "b", "opacity": "x" } ] }"#, "watermarks[1].opacity"),
            (##"{ "watermarks": [ { "text": "a", "colour": "#fff" } ] }"##, "watermarks[0].colour"),
            (#"{ "watermarks": [ { "text": "a", "color": "red" } ] }"#, "watermarks[0].color"),
            (#"{ "watermarks": [ { "text": "a", "anchor": "middle" } ] }"#, "watermarks[0].anchor"),
            (#"{ "watermarks": [ { "text": "a", "animation": { "type": "bounce" } } ] }"#, "watermarks[0].animation.type"),
            (##"{ "watermarks": [ { "text": "a", "outline": { "width": 0.01, "colour": "#000" } } ] }"##, "watermarks[0].outline.colour"),
            (#"{ "watermarks": [ { "size": 0.1 } ] }"#, "watermarks[0]"),
            (#"{ "watermarks": [ { "text": "a", "image": "b.png" } ] }"#, "watermarks[0]"),
            (#"{ "watermarks": [ { "text": "" } ] }"#, "watermarks[0].text"),
            (#"{ "watermarks": [ { "text": "{unclosed" } ] }"#, "watermarks[0].text"),
            (#"{ "watermarks": [ { "text": "a", "size": 0 } ] }"#, "watermarks[0].size"),
            (#"{ "watermarks": [ { "text": "a", "start": 5, "end": 2 } ] }"#, "watermarks[0].end"),
            (#"{ "watermarks": [ { "text": "a", "size": true } ] }"#, "watermarks[0].size"),
            (#"{ "marks": [] }"#, "marks"),
            (#"[1, 2]"#, "expected an object"),
            (#"{ "watermarks": [ "#, "$"),
        ]
        for (json, path) in cases {
            let error = configError(json)
            #expect(error != nil, "\(json)")
            #expect(error?.message.hasPrefix("test.json: ") == true, "\(json): \(error?.message ?? "no error")")
            #expect(error?.message.contains(path) == true, "\(json): \(error?.message ?? "no error")")
        }
    }

    @Test func outOfRangePositionsAndOpacityAreClampedWithAWarning() throws {
        let log = WarningLog()
        let config = try parse(#"{ "watermarks": [ { "text": "a", "x": 140, "y": -3, "opacity": 1.5 } ] }"#, warnings: log)
        #expect(config.layers[0].xPercent == 100 && config.layers[0].yPercent == 0 && config.layers[0].opacity == 1)
        #expect(log.messages.count == 3)
        #expect(log.messages.allSatisfy { $0.contains("watermarks[0].") })
    }

    @Test func shortDurationsAreClampedWithAWarning() throws {
        let log = WarningLog()
        let config = try parse(#"{ "watermarks": [ { "text": "a", "animation": { "type": "pingPong", "duration": 20 } } ] }"#, warnings: log)
        #expect(config.layers[0].animation?.durationMilliseconds == 100)
        #expect(log.messages.count == 1 && log.messages[0].contains("watermarks[0].animation.duration"))
    }

    @Test func placeholdersAndLiteralBraces() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "{{id}} {id} 100% \\ 'q' {email}" } ] }"#)
        guard case .text(let template) = config.layers[0].content else { Issue.record("not text"); return }
        #expect(Set(template.variableNames) == ["id", "email"])
        #expect(template.render(["id": "7", "email": "a{b}@x"]) == "{id} 7 100% \\ 'q' a{b}@x")
        #expect(config.variableNames == ["id", "email"])
        #expect(throws: ConfigError.self) { try config.checkVariables(["id": "7"]) }
        do {
            try config.checkVariables(["id": "7"])
        } catch let e as ConfigError {
            #expect(e.message.contains("{email}") && e.message.contains("watermarks[0].text"))
        }
    }

    @Test func tpStreamsPlayerConfigsAreAccepted() throws {
        let config = try parse("""
        { "watermarks": [
          { "text": "user@example.com", "x": 0, "y": 50, "color": 4294967295, "textSize": 16, "opacity": 0.5,
            "animation": { "type": "pingPong", "duration": 10000 } },
          { "imageUrl": "https://example.com/logo.png", "width": 48, "height": 36, "x": 92, "y": 88, "opacity": 1.0 }
        ] }
        """)
        #expect(config.isTPStreams && config.stacking == .earlierOnTop)
        // The SDK's layout: textSize is the font size and width × height a box, in points on a
        // 360-point short side, 16 points from the edges.
        #expect(config.layers.allSatisfy { $0.convention == .tpStreams && abs($0.insetFraction - 16.0 / 360) < 1e-12 })
        #expect(abs(config.layers[0].sizeFraction - 16.0 / 360) < 1e-12)
        #expect(config.layers[1].imageBox == LayerSpec.ImageBox(widthFraction: 48.0 / 360, heightFraction: 36.0 / 360))
        guard case .image(let url) = config.layers[1].content else { Issue.record("not an image"); return }
        #expect(url == "https://example.com/logo.png")
    }

    /// The SDK's defaults (textSize 14, a 48×48 box) and clamps: width and height below 0
    /// become 0 with a warning, as x, y and opacity are clamped; one TPStreams field makes the
    /// whole config one, and videowm's own sizing fields are refused there.
    @Test func tpStreamsDefaultsAndClamps() throws {
        let log = WarningLog()
        let config = try parse("""
        { "watermarks": [
          { "text": "a@example.com", "x": 120, "opacity": 1.5 },
          { "imageUrl": "logo.png", "width": -10 }
        ] }
        """, warnings: log)
        let warnings = log.messages
        #expect(config.isTPStreams)
        #expect(abs(config.layers[0].sizeFraction - 14.0 / 360) < 1e-12)
        #expect(config.layers[0].xPercent == 100 && config.layers[0].opacity == 1)
        #expect(config.layers[1].imageBox == LayerSpec.ImageBox(widthFraction: 0, heightFraction: 48.0 / 360))
        #expect(warnings.count == 3 && warnings.contains { $0.contains("watermarks[1].width") }, "\(warnings)")
        let mixed = configError(#"{ "watermarks": [ { "text": "a", "size": 0.05 }, { "imageUrl": "logo.png" } ] }"#)
        #expect(mixed?.path == "watermarks[0].size" && mixed?.problem.contains("TPStreams") == true, "\(String(describing: mixed))")
        // Without a TPStreams field, a config is videowm's own.
        let own = try parse(#"{ "watermarks": [ { "text": "a", "x": 10 } ] }"#)
        #expect(!own.isTPStreams && own.layers[0].convention == .standard && own.stacking == .laterOnTop)
    }

    @Test func hdrWhiteAnimateAndTheDenseTileAreRead() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "a", "hdrWhite": 300, "tile": {} }, { "image": "l.gif", "animate": false } ] }"#)
        #expect(config.layers[0].hdrWhiteNits == 300 && config.layers[1].hdrWhiteNits == 203)
        #expect(config.layers[0].tile?.spacingFraction == nil && config.layers[0].tile?.isDense == true)
        #expect(!config.layers[1].animate)
        #expect(configError(#"{ "watermarks": [ { "image": "l.gif", "animate": 1 } ] }"#)?.path == "watermarks[0].animate")
        #expect(configError(#"{ "watermarks": [ { "text": "a", "hdrWhite": 0 } ] }"#)?.path == "watermarks[0].hdrWhite")
    }

    @Test func unlessLeavesTheLayerOutForMatchingValues() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "{email}", "unless": { "plan": ["premium", "pro"] } } ] }"#)
        #expect(config.layers[0].isExcluded(by: ["plan": "premium", "email": "a"]))
        #expect(!config.layers[0].isExcluded(by: ["plan": "free", "email": "a"]))
        #expect(!config.layers[0].isExcluded(by: ["email": "a"]))
    }

    @Test func randomSeedDefaultsToTheRenderedText() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "{email}", "animation": { "type": "random", "duration": 1000 } } ] }"#)
        let a = try config.layers[0].timeline(renderedText: "a@example.com")
        let b = try config.layers[0].timeline(renderedText: "b@example.com")
        let t = PresentationTime(seconds: 3.5)
        #expect(a.state(at: t) != b.state(at: t))
        #expect(try a.state(at: t) == config.layers[0].timeline(renderedText: "a@example.com").state(at: t))
    }
}
