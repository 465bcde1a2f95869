import CFFmpeg
import Overlay

/// Describes a decoded frame's pixel format well enough to blend into it directly.
struct PlanarYUVLayout: Equatable {
    var chromaShiftX: Int
    var chromaShiftY: Int
    var bitDepth: Int
}

extension PlanarYUVLayout {
    /// The layout of `format` if marks can be blended into it in place: planar YUV with
    /// 8-bit samples, or 9–16-bit samples in native (little-endian) 16-bit words. Semi-planar
    /// (NV12), packed and RGB formats are converted first.
    init?(_ format: AVPixelFormat) {
        guard let descriptor = av_pix_fmt_desc_get(format) else { return nil }
        let d = descriptor.pointee
        let flags = d.flags
        guard flags & UInt64(AV_PIX_FMT_FLAG_PLANAR) != 0,
              flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0,
              flags & UInt64(AV_PIX_FMT_FLAG_BE) == 0,
              flags & UInt64(AV_PIX_FMT_FLAG_HWACCEL) == 0,
              flags & UInt64(AV_PIX_FMT_FLAG_PAL) == 0,
              d.nb_components >= 3
        else { return nil }
        let components = [d.comp.0, d.comp.1, d.comp.2]
        // Y, U, V each in its own plane 0, 1, 2, no packing inside a word.
        guard components.enumerated().allSatisfy({ $1.plane == Int32($0) && $1.offset == 0 && $1.shift == 0 }) else { return nil }
        let depth = Int(components[0].depth)
        let step = Int(components[0].step)
        guard (depth == 8 && step == 1) || (depth > 8 && depth <= 16 && step == 2) else { return nil }
        chromaShiftX = Int(d.log2_chroma_w)
        chromaShiftY = Int(d.log2_chroma_h)
        bitDepth = depth
    }
}

/// The colour matrix a frame's YUV samples use; when the file does not say, the usual
/// guess of players: BT.709 from 720 lines up, BT.601 below.
func colorMatrix(of frame: UnsafeMutablePointer<AVFrame>) -> YUVColorMatrix {
    let f = frame.pointee
    let coefficients: YUVColorMatrix.Coefficients
    switch f.colorspace {
    case AVCOL_SPC_BT709: coefficients = .bt709
    case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M, AVCOL_SPC_FCC, AVCOL_SPC_SMPTE240M: coefficients = .bt601
    case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: coefficients = .bt2020
    default: coefficients = f.height >= 720 ? .bt709 : .bt601
    }
    let format = AVPixelFormat(rawValue: f.format)
    let jpegFormats: Set<Int32> = [AV_PIX_FMT_YUVJ420P.rawValue, AV_PIX_FMT_YUVJ422P.rawValue, AV_PIX_FMT_YUVJ444P.rawValue, AV_PIX_FMT_YUVJ440P.rawValue, AV_PIX_FMT_YUVJ411P.rawValue]
    let full = f.color_range == AVCOL_RANGE_JPEG || jpegFormats.contains(format.rawValue)
    return YUVColorMatrix(coefficients: coefficients, isFullRange: full)
}

/// A canvas over the top-left `width`×`height` of a writable planar YUV frame.
func planarCanvas(for frame: UnsafeMutablePointer<AVFrame>, layout: PlanarYUVLayout, width: Int, height: Int) -> PlanarYUVCanvas {
    let f = frame.pointee
    func plane(_ i: Int) -> PlanarYUVCanvas.Plane {
        let data = withUnsafeBytes(of: f.data) { $0.load(fromByteOffset: i * MemoryLayout<UnsafeMutablePointer<UInt8>?>.stride, as: UnsafeMutablePointer<UInt8>?.self) }
        let linesize = withUnsafeBytes(of: f.linesize) { $0.load(fromByteOffset: i * MemoryLayout<Int32>.stride, as: Int32.self) }
        return PlanarYUVCanvas.Plane(base: UnsafeMutableRawPointer(data!), bytesPerRow: Int(linesize))
    }
    precondition(width <= Int(f.width) && height <= Int(f.height), "canvas larger than the frame")
    return PlanarYUVCanvas(width: width, height: height, luma: plane(0), u: plane(1), v: plane(2),
                           chromaShiftX: layout.chromaShiftX, chromaShiftY: layout.chromaShiftY,
                           bitDepth: layout.bitDepth, matrix: colorMatrix(of: frame))
}

/// swscale's matrix constant for a colour space.
func swsMatrix(for colorspace: AVColorSpace, height: Int) -> Int32 {
    switch colorspace {
    case AVCOL_SPC_BT709: return SWS_CS_ITU709
    case AVCOL_SPC_BT2020_NCL, AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020
    case AVCOL_SPC_BT470BG, AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601
    default: return height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601
    }
}

/// How frames are described once converted for marking. YUV sources keep their matrix and
/// range; RGB sources become limited-range YUV with the matrix players assume for that
/// size (BT.709 from 720 lines, else BT.601), which the encoder must then signal.
struct ConvertedColor: Equatable {
    var colorspace: AVColorSpace
    var range: AVColorRange

    init(decodedFormat: AVPixelFormat, colorspace: AVColorSpace, range: AVColorRange, height: Int) {
        let isRGB = av_pix_fmt_desc_get(decodedFormat).map { $0.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 } ?? false
        if isRGB || colorspace == AVCOL_SPC_RGB {
            self.colorspace = height >= 720 ? AVCOL_SPC_BT709 : AVCOL_SPC_SMPTE170M
            self.range = AVCOL_RANGE_MPEG
        } else {
            self.colorspace = colorspace
            self.range = range
        }
    }
}
