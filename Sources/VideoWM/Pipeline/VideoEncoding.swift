import Overlay

/// The decisions behind re-encoding a video: the encoder, the pixel format marks are blended
/// in and the encoder takes, the size it needs, and the colour it must signal.
extension VideoEncoderConfiguration {
    /// The configuration for re-encoding `source` with `settings` into `target` (whose container
    /// picks the default codec and says whether codec headers go out of band).
    init(reencoding source: VideoStreamDescription, settings: EncodeSettings, target: OutputTarget) throws {
        let codec = settings.videoCodec(for: target)
        let encoderName = codec.encoderName
        let format = try Self.pixelFormat(for: source.pixelFormat, supported: Encoder.supportedPixelFormats(ofEncoderNamed: encoderName),
                                          encoder: encoderName)
        let layout = format.planarLayout!
        let scaled = Self.scaledPicture(of: source, settings: settings, layout: layout)
        let size = layout.encodableSize(width: scaled?.width ?? source.width, height: scaled?.height ?? source.height)
        // Profile and level are checked against the picture the encoder will get: x264 would
        // only warn and write a stream that declares a level it breaks.
        let rate = source.frameRate.map { Double($0.numerator) / Double($0.denominator) } ?? 0
        try settings.controls.validate(for: codec, picture: EncodedPicture(width: size.width, height: size.height, bitDepth: layout.bitDepth,
                                                                           chroma: layout.chroma, framesPerSecond: rate))
        let changes = settings.controls.changes(for: codec)
        self.init(encoderName: encoderName, pixelFormat: format, width: size.width, height: size.height,
                  // A scaled picture has square pixels: its size was chosen from the displayed shape.
                  sampleAspect: scaled == nil ? source.codecSampleAspect : Rational(1, 1),
                  // The input's time base, so every timestamp passes through exactly.
                  timeBase: source.timeBase, frameRate: source.frameRate,
                  color: source.color.convertedForMarking(from: source.pixelFormat, height: source.height),
                  threads: settings.threads, bitRate: settings.bitRate,
                  maxRate: changes.maxRate.map(Int.init), bufferSize: changes.bufferSize.map(Int.init),
                  globalHeader: target.container.needsGlobalHeader, options: settings.encoderOptions(for: codec, changes: changes),
                  gopSize: changes.gopSize.map(Int.init), minKeyframeInterval: changes.minKeyframeInterval.map(Int.init),
                  profileNumber: changes.profileNumber.map(Int.init),
                  forcedKeyframes: changes.forcesKeyframes ? settings.controls.gop : nil,
                  // Fields survive only a picture that keeps its rows: a scaled one is progressive.
                  fieldOrder: scaled == nil && Self.interlacedEncoders.contains(encoderName) ? source.fieldOrder : .progressive)
    }

    /// The stored size of the picture `settings.scale` asks for (square pixels, whole chroma
    /// samples of `layout`), or nil when the picture keeps its size. The request is read in
    /// display terms — a phone's portrait video at `--height 720` is 720 tall as shown — and
    /// anamorphic pixels are first widened to their shown shape.
    static func scaledPicture(of source: VideoStreamDescription, settings: EncodeSettings, layout: PlanarYUVLayout) -> (width: Int, height: Int)? {
        guard let request = settings.scale else { return nil }
        return scaledPicture(width: source.width, height: source.height, pixelAspect: source.pixelAspect, rotation: source.rotation,
                             request: request, upscale: settings.upscale, layout: layout)
    }

    /// The same for a stored `width`×`height` picture (a thumbnail's frame).
    static func scaledPicture(width: Int, height: Int, pixelAspect aspect: PixelAspect, rotation: DisplayRotation,
                              request: ScaleRequest, upscale: Bool, layout: PlanarYUVLayout) -> (width: Int, height: Int)? {
        let shownWidth = max(1, Int((Double(width) * Double(aspect.numerator) / Double(aspect.denominator)).rounded()))
        let display = rotation.displaySize(storedWidth: shownWidth, storedHeight: height)
        let unit = max(1 << layout.chromaShiftX, 1 << layout.chromaShiftY)
        guard let size = request.outputSize(width: display.width, height: display.height, unit: unit, upscale: upscale) else {
            // The same size asked for, but anamorphic pixels: still made square.
            return shownWidth == width ? nil : layout.encodableSize(width: shownWidth, height: height)
        }
        return rotation.swapsAxes ? (size.height, size.width) : size
    }

    /// The decoded format when the encoder takes it and marks can be blended into it;
    /// otherwise 4:2:0 (8- or 10-bit, following the source), which every player plays;
    /// otherwise the encoder's closest format that marks can be blended into. `supported`
    /// empty means the encoder does not say.
    static func pixelFormat(for decoded: PixelFormat, supported: [PixelFormat], encoder: String) throws -> PixelFormat {
        func takes(_ format: PixelFormat) -> Bool { supported.isEmpty || supported.contains(format) }
        if decoded.planarLayout != nil && takes(decoded) { return decoded }
        for preferred in decoded.bitDepth > 8 ? [PixelFormat.yuv420p10, .yuv420p] : [.yuv420p] where takes(preferred) {
            return preferred
        }
        let blendable = supported.isEmpty ? [.yuv420p] : supported.filter { $0.planarLayout != nil }
        guard !blendable.isEmpty else { throw EncoderError(encoder: encoder, problem: .noBlendablePixelFormat) }
        return PixelFormat.closest(to: decoded, among: blendable) ?? blendable[0]
    }

    /// The notices re-encoding `video` as this configuration says gives: interlaced pictures
    /// encoded as progressive, transparency lost, an odd size padded. `output` ends the
    /// transparency notice ("out.mp4 is").
    func notices(reencoding video: VideoStreamDescription, scaled: Bool, input: String, output: String) -> [String] {
        var notices: [String] = []
        if let order = video.fieldOrder.name, !fieldOrder.isInterlaced {
            notices.append("\(input): interlaced video (\(order)) encoded by \(encoderName) as progressive frames, not deinterlaced: moving edges keep their combing")
        }
        if video.hasAlpha && !pixelFormat.hasAlpha {
            notices.append("\(input): the video's transparency (alpha channel) is not kept: \(output) opaque")
        }
        if !scaled, width != video.width || height != video.height {
            notices.append("\(input): \(video.width)×\(video.height) padded to \(width)×\(height) for \(pixelFormat) (the encoder needs even sizes); the extra column or row repeats the edge")
        }
        return notices
    }
}
