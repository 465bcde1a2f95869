internal import CFFmpeg
import Overlay

/// An owned `SwsContext`: scales and converts pictures of one size and format to another,
/// keeping colours as `colors` says. Accurate rounding and full chroma interpolation for
/// every conversion the tool makes, so a thumbnail's pixels are what the pipeline's own
/// conversion gives; bicubic, except where a size option resizes (`Filter`).
package final class PixelScaler {
    /// The resampling filter. Bicubic for conversions at (nearly) the same size; Lanczos (3
    /// lobes) where `--scale` resizes a picture, mostly down, where its sharper cut-off keeps
    /// fine detail (small text) that bicubic softens.
    package enum Filter {
        case bicubic, lanczos

        var flags: Int32 {
            switch self {
            case .bicubic: SWS_BICUBIC
            case .lanczos: SWS_LANCZOS
            }
        }
    }

    private let context: OpaquePointer
    let sourceHeight: Int
    private let file: String
    /// Where the current call writes: four plane pointers and strides, filled per call (no
    /// allocation per frame).
    private let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
    private let lineSizes: UnsafeMutablePointer<Int32>

    package init(from source: (width: Int, height: Int, format: PixelFormat), to target: (width: Int, height: Int, format: PixelFormat),
         colors: ColorConversion, filter: Filter = .bicubic, file: String) throws {
        guard let context = sws_getContext(Int32(source.width), Int32(source.height), source.format.av,
                                           Int32(target.width), Int32(target.height), target.format.av,
                                           filter.flags | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, nil, nil, nil) else {
            throw MediaError(file: file, detail: "cannot convert pixels from \(source.format) to \(target.format)")
        }
        self.context = context
        sourceHeight = source.height
        self.file = file
        let coefficients = sws_getCoefficients(colors.coefficients.value)
        sws_setColorspaceDetails(context, coefficients, colors.sourceFullRange ? 1 : 0, coefficients, colors.targetFullRange ? 1 : 0,
                                 0, 1 << 16, 1 << 16)
        planes = .allocate(capacity: 4)
        planes.initialize(repeating: nil, count: 4)
        lineSizes = .allocate(capacity: 4)
        lineSizes.initialize(repeating: 0, count: 4)
    }

    deinit {
        sws_freeContext(context)
        planes.deallocate()
        lineSizes.deallocate()
    }

    /// Scales `frame` into `output`'s planes, starting `offsets` bytes into each (0 for the corner).
    func scale(_ frame: Frame, into output: Frame, offsets: (Int, Int, Int, Int) = (0, 0, 0, 0)) throws {
        for plane in 0..<4 {
            let offset = switch plane { case 0: offsets.0; case 1: offsets.1; case 2: offsets.2; default: offsets.3 }
            planes[plane] = output.dataPointers[plane].map { $0 + offset }
            lineSizes[plane] = output.lineSizes[plane]
        }
        try run(frame)
    }

    /// Scales `frame` into one packed plane (RGBA) at `base`, `bytesPerRow` apart.
    package func scale(_ frame: Frame, intoPacked base: UnsafeMutablePointer<UInt8>, bytesPerRow: Int) throws {
        planes[0] = base
        lineSizes[0] = Int32(bytesPerRow)
        for plane in 1..<4 {
            planes[plane] = nil
            lineSizes[plane] = 0
        }
        try run(frame)
    }

    private func run(_ frame: Frame) throws {
        let code = sws_scale(context, frame.readOnlyDataPointers, frame.lineSizes, 0, Int32(sourceHeight), planes, lineSizes)
        try check(code, MediaError.call("converting pixels", file: file))
    }
}

/// Turns decoded (and marked) frames into RGBA images, optionally resized, writing straight
/// into the image's own buffer.
package final class RGBAConverter {
    private let scaler: PixelScaler
    let targetWidth: Int
    let targetHeight: Int

    /// A converter for frames shaped like `frame` (size and pixel format) to `width`×`height`.
    package init(from frame: Frame, toWidth width: Int, height: Int, colors: ColorConversion, file: String) throws {
        precondition(width > 0 && height > 0, "converting to an empty picture")
        scaler = try PixelScaler(from: (frame.width, frame.height, frame.pixelFormat), to: (width, height, .rgba), colors: colors, file: file)
        targetWidth = width
        targetHeight = height
    }

    package func convert(_ frame: Frame) throws -> StraightRGBAImage {
        var pixels = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        try pixels.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            try scaler.scale(frame, intoPacked: base, bytesPerRow: targetWidth * 4)
        }
        return StraightRGBAImage(width: targetWidth, height: targetHeight, pixels: pixels)
    }
}

/// Turns decoded (and marked) frames into 16-bit R′G′B′ samples, three per pixel, optionally
/// resized: what an HDR frame is tone-mapped from (`HDRToneMapping`), without the banding
/// 8 bits would leave in a PQ or HLG signal's mid-tones.
package final class RGB48Converter {
    private let scaler: PixelScaler
    let targetWidth: Int
    let targetHeight: Int

    package init(from frame: Frame, toWidth width: Int, height: Int, colors: ColorConversion, file: String) throws {
        precondition(width > 0 && height > 0, "converting to an empty picture")
        scaler = try PixelScaler(from: (frame.width, frame.height, frame.pixelFormat), to: (width, height, .rgb48), colors: colors, file: file)
        targetWidth = width
        targetHeight = height
    }

    /// The samples, in the machine's byte order.
    package func convert(_ frame: Frame) throws -> [UInt16] {
        var samples = [UInt16](repeating: 0, count: targetWidth * targetHeight * 3)
        try samples.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            try scaler.scale(frame, intoPacked: base.assumingMemoryBound(to: UInt8.self), bytesPerRow: targetWidth * 6)
        }
        #if _endian(big)
        for i in samples.indices { samples[i] = UInt16(littleEndian: samples[i]) }
        #endif
        return samples
    }
}
