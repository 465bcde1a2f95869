internal import CFFmpeg

/// A pixel format (FFmpeg's `AVPixelFormat`), with what the pipeline asks of one.
package struct PixelFormat: Hashable, Sendable, CustomStringConvertible {
    let av: AVPixelFormat

    init(_ av: AVPixelFormat) { self.av = av }

    package static let yuv420p = PixelFormat(AV_PIX_FMT_YUV420P)
    package static let yuv420p10 = PixelFormat(AV_PIX_FMT_YUV420P10LE)
    package static let yuva420p = PixelFormat(AV_PIX_FMT_YUVA420P)
    package static let rgba = PixelFormat(AV_PIX_FMT_RGBA)
    package static let rgb24 = PixelFormat(AV_PIX_FMT_RGB24)
    /// 16 bits per component, little-endian: what HDR frames are tone-mapped from.
    static let rgb48 = PixelFormat(AV_PIX_FMT_RGB48LE)
    /// Luma alone, 8 bits: what leak tracing compares.
    package static let gray8 = PixelFormat(AV_PIX_FMT_GRAY8)
    /// Full-range 8-bit YUV, as JPEG stores it, by chroma subsampling (right shifts of x and y).
    package static func jpeg(chromaShiftX: Int, chromaShiftY: Int) -> PixelFormat {
        switch (chromaShiftX, chromaShiftY) {
        case (1, 1): PixelFormat(AV_PIX_FMT_YUVJ420P)
        case (1, 0): PixelFormat(AV_PIX_FMT_YUVJ422P)
        case (0, 1): PixelFormat(AV_PIX_FMT_YUVJ440P)
        default: PixelFormat(AV_PIX_FMT_YUVJ444P)
        }
    }

    /// FFmpeg's name ("yuv420p"), nil for a value FFmpeg does not know.
    var knownName: String? { av_get_pix_fmt_name(av).map { String(cString: $0) } }
    var name: String { knownName ?? "unknown" }
    package var description: String { name }

    private var descriptor: AVPixFmtDescriptor? { av_pix_fmt_desc_get(av)?.pointee }

    /// RGB (or BGR, GBR planar…) rather than YUV.
    package var hasAlpha: Bool { (descriptor?.flags ?? 0) & UInt64(AV_PIX_FMT_FLAG_ALPHA) != 0 }
    var isRGB: Bool { (descriptor?.flags ?? 0) & UInt64(AV_PIX_FMT_FLAG_RGB) != 0 }

    /// Bits per sample of the first component (8 for yuv420p, 10 for yuv420p10le).
    package var bitDepth: Int { Int(descriptor?.comp.0.depth ?? 8) }

    /// The "J" formats, full range by definition whatever a frame's range says.
    var isJPEGRange: Bool {
        [AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ411P].contains(av)
    }

    /// How marks can be blended into frames of this format in place, or nil when frames
    /// must be converted first: planar YUV with 8-bit samples, or 9–16-bit samples in native
    /// (little-endian) 16-bit words. Semi-planar (NV12), packed and RGB formats are not.
    package var planarLayout: PlanarYUVLayout? {
        guard let d = descriptor else { return nil }
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
        return PlanarYUVLayout(chromaShiftX: Int(d.log2_chroma_w), chromaShiftY: Int(d.log2_chroma_h), bitDepth: depth)
    }

    /// The format of `candidates` that loses least converting from `source` (FFmpeg's ranking).
    package static func closest(to source: PixelFormat, among candidates: [PixelFormat]) -> PixelFormat? {
        guard !candidates.isEmpty else { return nil }
        var list = candidates.map(\.av) + [AV_PIX_FMT_NONE]
        let best = avcodec_find_best_pix_fmt_of_list(&list, source.av, 0, nil)
        return best == AV_PIX_FMT_NONE ? nil : PixelFormat(best)
    }
}

/// How a planar YUV frame's samples are laid out, for blending into it directly.
package struct PlanarYUVLayout: Equatable, Sendable {
    package var chromaShiftX: Int
    package var chromaShiftY: Int
    package var bitDepth: Int

    var bytesPerSample: Int { bitDepth > 8 ? 2 : 1 }

    /// The chroma subsampling, as profiles name it.
    package var chroma: ChromaSubsampling { chromaShiftY > 0 ? .s420 : chromaShiftX > 0 ? .s422 : .s444 }

    /// Samples across and down plane `plane` (0 luma, 1 and 2 chroma) of a `width`×`height` picture.
    func planeSize(_ plane: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        guard plane == 1 || plane == 2 else { return (width, height) }
        return ((width + (1 << chromaShiftX) - 1) >> chromaShiftX, (height + (1 << chromaShiftY) - 1) >> chromaShiftY)
    }

    /// The size an encoder of this layout needs for a `width`×`height` picture: rounded up
    /// to whole chroma samples (4:2:0 and 4:2:2 encoders refuse odd sizes).
    package func encodableSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let unitX = 1 << chromaShiftX, unitY = 1 << chromaShiftY
        return ((width + unitX - 1) / unitX * unitX, (height + unitY - 1) / unitY * unitY)
    }
}

/// How a YUV picture's chroma is sampled: 4:2:0, 4:2:2 or 4:4:4.
public enum ChromaSubsampling: String, Sendable, Hashable {
    /// Half the luma's resolution both ways (4:2:0), half across (4:2:2), or full (4:4:4).
    case s420 = "4:2:0", s422 = "4:2:2", s444 = "4:4:4"
}
