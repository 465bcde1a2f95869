import Animation
import Foundation
import Overlay

extension WatermarkConfig {
    /// Checks that `variables` give a value to every placeholder.
    /// `{timecode}`, `{pts}`, `{date}` and `{time}` are always known (`TextTokens`).
    public func checkVariables(_ variables: [String: String]) throws {
        for layer in layers {
            guard case .text(let template) = layer.content else { continue }
            for name in template.variableNames where variables[name] == nil && !TextTokens.all.contains(name) {
                let known = variables.keys.sorted()
                throw ConfigError(file: file, path: layer.path + ".text",
                                  problem: "unknown placeholder '{\(name)}' (give it with --var \(name)=VALUE\(known.isEmpty ? "" : "; known: \(known.joined(separator: ", "))"))")
            }
        }
        if let layer = variantLayer, let student = layer.variants?.student,
           let name = student.variableNames.first(where: { variables[$0] == nil }) {
            throw ConfigError(file: file, path: layer.path + ".variants.student",
                              problem: "unknown placeholder '{\(name)}' (the student is named by the row's variables: give it with --var or a CSV column)")
        }
    }

    /// The layers to draw for these variables: placeholders filled in, `unless` applied,
    /// images decoded (each path once, through `images`). Each spec's `origin` names this
    /// file and the layer's JSON path, so a layer dropped by `unless` does not shift the
    /// path a later layer's error names.
    ///
    /// A text with `{timecode}` or `{pts}` becomes a timed text, evaluated per frame; its random
    /// animation's default seed is the text with those placeholders left as written, so the
    /// path stays the same all along the video. `{date}` and `{time}` are the job's start
    /// (`jobValues`) unless a variable of that name is given.
    public func layerSpecs(variables: [String: String], images: ImageCache,
                           jobValues: [String: String] = TextTokens.jobValues()) throws -> [LayerSpec] {
        try checkVariables(variables)
        let values = jobValues.merging(variables) { _, given in given }
        var specs: [LayerSpec] = []
        for layer in layers where !layer.isExcluded(by: variables) {
            let content: LayerSpec.Content
            let seedText: String
            switch layer.content {
            case .text(let template):
                let perFrame = Set(template.variableNames).intersection(TextTokens.perFrame).subtracting(values.keys)
                if perFrame.isEmpty {
                    let text = template.render(values)
                    content = .text(text)
                    seedText = text
                } else {
                    content = .timedText(TimedText(frame: { frame in
                        template.render(values.merging(TextTokens.frameValues(frame)) { given, _ in given })
                    }))
                    seedText = template.render(values.merging(perFrame.map { ($0, "{\($0)}") }) { given, _ in given })
                }
            case .image(let source):
                do {
                    switch try images.logo(at: source) {
                    case .animated(let animation) where layer.animate:
                        content = .animatedImage(animation, name: source)
                    case .animated(let animation):
                        content = .image(animation.frames[0], name: source)
                    case .still(let image):
                        content = .image(image, name: source)
                    }
                } catch where error is InputError || error is MediaError {
                    // Say which layer wanted the image; an interrupt or a full disk passes as it is.
                    throw LayerError(layerIndex: layer.index, origin: LayerSpec.Origin(file: file, path: layer.path), field: "image", cause: .image(error))
                }
                seedText = source
            }
            specs.append(LayerSpec(
                content: content, sizeFraction: layer.sizeFraction, font: layer.font, color: layer.color,
                opacity: layer.opacity, insetFraction: layer.insetFraction, maxWidthFraction: layer.maxWidthFraction,
                outline: layer.outline, shadow: layer.shadow, box: layer.box, tile: layer.tile,
                timeline: try layer.timeline(renderedText: seedText, pathKey: pathKey),
                origin: LayerSpec.Origin(file: file, path: layer.path),
                hdrWhiteNits: layer.hdrWhiteNits, convention: layer.convention, imageBox: layer.imageBox,
                maxLines: layer.maxLines, alignment: layer.alignment,
                variants: layer.variants.map { LayerVariants(count: $0.count, periodSeconds: $0.periodSeconds) }))
        }
        return specs
    }
}

extension Compositor {
    /// The compositor for one job: `config`'s layers bound to `variables`.
    ///
    /// Every text layer is drawn once for a 1920×1080 frame before this returns, so a missing
    /// or broken font and an empty or overlong text fail here, before any output exists,
    /// with the config file and JSON path (see `LayerError.rethrowing`).
    public static func forJob(config: WatermarkConfig, variables: [String: String], images: ImageCache = ImageCache(),
                              warn: @escaping WarningHandler) throws -> Compositor {
        let layers = try config.layerSpecs(variables: variables, images: images)
        let fonts = try TextEngineError.fontLibrary()
        let compositor = Compositor(layers: layers, fonts: fonts, stacking: config.stacking, warn: warn)
        try LayerError.rethrowing { try compositor.validate(displayWidth: 1920, displayHeight: 1080) }
        return compositor
    }
}
