internal import CFFmpeg
import Overlay

/// How a picture's colours are coded, as a stream or frame says: primaries, transfer,
/// YUV matrix, range and chroma siting. Carried through from input to output unchanged,
/// except where a conversion changes the matrix or range (`convertedForMarking`).
package struct ColorDescription: Equatable, Sendable {
    var primaries = AVCOL_PRI_UNSPECIFIED
    var transfer = AVCOL_TRC_UNSPECIFIED
    var matrix = AVCOL_SPC_UNSPECIFIED
    var range = AVCOL_RANGE_UNSPECIFIED
    var chromaLocation = AVCHROMA_LOC_UNSPECIFIED

    /// What FFmpeg's mjpeg decoder says of a JPEG's pictures.
    package static let jpeg = ColorDescription(matrix: AVCOL_SPC_BT470BG, range: AVCOL_RANGE_JPEG, chromaLocation: AVCHROMA_LOC_CENTER)

    /// Samples span 0…max rather than the limited ("TV") range.
    var isFullRange: Bool { range == AVCOL_RANGE_JPEG }

    /// The range is stated as limited ("tv").
    package var isLimitedRange: Bool { range == AVCOL_RANGE_MPEG }

    package mutating func markLimitedRange() { range = AVCOL_RANGE_MPEG }

    /// The YUV matrix the samples use; when the file does not say, the usual guess of
    /// players: BT.709 from 720 lines up, BT.601 below.
    func yuvMatrix(height: Int, format: PixelFormat) -> YUVColorMatrix {
        let coefficients: YUVColorMatrix.Coefficients
        switch matrix {
        case AVCOL_SPC_BT709: coefficients = .bt709
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC, AVCOL_SPC_SMPTE240M: coefficients = .bt601
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: coefficients = .bt2020
        default: coefficients = height >= 720 ? .bt709 : .bt601
        }
        return YUVColorMatrix(coefficients: coefficients, isFullRange: isFullRange || format.isJPEGRange)
    }

    /// The transfer and primaries the compositor maps marks into: PQ (SMPTE ST 2084) and HLG
    /// (ARIB STD-B67) frames are HDR; anything else is SDR and marked exactly as before. An
    /// HDR frame is taken as BT.2020 unless it says BT.709, as players do with untagged primaries.
    package var frameColorSpace: FrameColorSpace {
        let transfer: FrameColorSpace.Transfer
        switch self.transfer {
        case AVCOL_TRC_SMPTE2084: transfer = .pq
        case AVCOL_TRC_ARIB_STD_B67: transfer = .hlg
        default: return .sdr
        }
        return FrameColorSpace(transfer: transfer, primaries: primaries == AVCOL_PRI_BT709 ? .bt709 : .bt2020)
    }

    /// swscale's coefficient table for the matrix (the same guess by height when unknown).
    func scaleCoefficients(height: Int) -> ScaleCoefficients {
        switch matrix {
        case AVCOL_SPC_BT709: ScaleCoefficients(SWS_CS_ITU709)
        case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: ScaleCoefficients(SWS_CS_BT2020)
        case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: ScaleCoefficients(SWS_CS_ITU601)
        default: ScaleCoefficients(height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601)
        }
    }

    /// How frames of this description are described once converted for marking, and encoded.
    /// YUV sources keep their matrix and range; RGB sources become limited-range YUV with the
    /// matrix players assume for that size (BT.709 from 720 lines, else BT.601), which the
    /// encoder must then signal. A YUV picture of 720 lines or more that says nothing of its
    /// colour was marked as BT.709 (`yuvMatrix`'s guess) and is said to be BT.709 — primaries,
    /// transfer and matrix — so a player that guesses otherwise still shows it, marks included,
    /// as it was marked. (Below 720 lines the guess, BT.601, leaves the primaries open: 525 or 625
    /// lines.)
    package func convertedForMarking(from format: PixelFormat, height: Int) -> ColorDescription {
        var converted = self
        if format.isRGB || matrix == AVCOL_SPC_RGB {
            converted.matrix = height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
            converted.range = AVCOL_RANGE_MPEG
        } else if height >= 720, isUntagged {
            converted.primaries = AVCOL_PRI_BT709
            converted.transfer = AVCOL_TRC_BT709
            converted.matrix = AVCOL_SPC_BT709
        }
        return converted
    }

    /// Whether the description says nothing of primaries, transfer or matrix.
    var isUntagged: Bool { primaries == AVCOL_PRI_UNSPECIFIED && transfer == AVCOL_TRC_UNSPECIFIED && matrix == AVCOL_SPC_UNSPECIFIED }
}

/// One of swscale's coefficient tables (`SWS_CS_*`).
package struct ScaleCoefficients: Equatable, Sendable {
    let value: Int32
    init(_ value: Int32) { self.value = value }
    package static let bt601 = ScaleCoefficients(SWS_CS_ITU601)
}

/// What swscale needs to keep colours while converting: the matrix of the YUV side, and
/// whether each side is full range.
package struct ColorConversion: Equatable, Sendable {
    var coefficients: ScaleCoefficients
    var sourceFullRange: Bool
    var targetFullRange: Bool

    /// The memberwise initializer, spelt out so VideoWM can call it.
    package init(coefficients: ScaleCoefficients, sourceFullRange: Bool, targetFullRange: Bool) {
        self.coefficients = coefficients
        self.sourceFullRange = sourceFullRange
        self.targetFullRange = targetFullRange
    }

    /// A frame of `source` (pixel format `format`) converted to `target` for marking: its own
    /// matrix and range; for RGB sources, which have no matrix, the one `target` gives the output.
    package static func marking(from source: ColorDescription, format: PixelFormat, to target: ColorDescription, height: Int) -> ColorConversion {
        // RGB has no range to keep (it is full); an untagged YUV source given BT.709 tags
        // (`convertedForMarking`) keeps its own range.
        let fromRGB = format.isRGB || source.matrix == AVCOL_SPC_RGB
        return ColorConversion(coefficients: target.scaleCoefficients(height: height), sourceFullRange: fromRGB || source.isFullRange,
                               targetFullRange: target.isFullRange)
    }

    /// A still (decoded image or marked video frame) to full-range RGBA. `stillRange`: stills
    /// are full range unless they say otherwise (lossy WebP says "tv"); video frames are
    /// limited unless they say full.
    package static func toRGBA(from source: ColorDescription, format: PixelFormat, height: Int, stillRange: Bool) -> ColorConversion {
        let full = stillRange ? !source.isLimitedRange : source.yuvMatrix(height: height, format: format).isFullRange
        return ColorConversion(coefficients: source.scaleCoefficients(height: height), sourceFullRange: full, targetFullRange: true)
    }

    /// Full-range RGBA to limited-range BT.601 YUV, as libwebp (like VP8) codes it.
    package static let rgbaToWebP = ColorConversion(coefficients: .bt601, sourceFullRange: true, targetFullRange: false)
}
