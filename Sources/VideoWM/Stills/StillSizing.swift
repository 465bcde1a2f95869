import Overlay

extension StraightRGBAImage {
    /// This upright image at the size `request` asks for (`--scale`, `--max-size`…; any whole
    /// number of pixels, stills having no chroma subsampling), or itself when it keeps its
    /// size. swscale's Lanczos filter, as for video. The image is scaled before it is marked,
    /// so the marks are drawn at the output's size. Alpha is scaled as it is stored
    /// (straight): photos are opaque, and a transparent PNG's edge colours bleed at most
    /// into pixels that were nearly transparent.
    func scaled(_ request: ScaleRequest, upscale: Bool, file: String) throws -> StraightRGBAImage {
        guard let size = request.outputSize(width: width, height: height, unit: 1, upscale: upscale) else { return self }
        let converter = try FrameConverter(from: .init(width: width, height: height, format: .rgba),
                                           to: .init(width: size.width, height: size.height, format: .rgba),
                                           placement: .scaled(width: size.width, height: size.height),
                                           colors: ColorConversion(coefficients: .bt601, sourceFullRange: true, targetFullRange: true), file: file)
        let pixels = try withBorrowedFrame { try converter.convert($0).packedRGBA(width: size.width, height: size.height) }
        return StraightRGBAImage(width: size.width, height: size.height, pixels: pixels)
    }
}
