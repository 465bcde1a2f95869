internal import CFFmpeg
import Overlay

/// An owned `AVFrame`: a decoded picture (or audio samples), with typed accessors for what
/// the pipeline reads and sets. The frame's buffers are reference-counted by FFmpeg;
/// `unref` drops this frame's references so it can be filled again.
package final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    package init() throws {
        guard let f = av_frame_alloc() else { throw ResourceError.memory("allocating a frame") }
        pointer = f
    }

    /// A picture of `width`×`height` in `format`, with its buffers allocated; `file` names
    /// the picture in errors.
    package convenience init(width: Int, height: Int, format: PixelFormat, file: String) throws {
        try self.init()
        try allocate(width: width, height: height, format: format, file: file)
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&f)
    }

    package func unref() { av_frame_unref(pointer) }

    /// Gives this (empty) frame buffers for a `width`×`height` picture in `format`.
    func allocate(width: Int, height: Int, format: PixelFormat, file: String) throws {
        pointer.pointee.width = Int32(width)
        pointer.pointee.height = Int32(height)
        pointer.pointee.format = format.av.rawValue
        try check(av_frame_get_buffer(pointer, 0), MediaError.call("allocating a \(width)×\(height) \(format) picture", file: file))
    }

    /// Makes this frame another reference to `other`'s buffers and properties.
    package func reference(_ other: Frame, file: String) throws {
        unref()
        try check(av_frame_ref(pointer, other.pointer), OutputError.call("referencing a frame", file: file))
    }

    /// Copies the buffers on write: afterwards this frame alone owns what it points at.
    package func makeWritable(file: String) throws {
        try check(av_frame_make_writable(pointer), OutputError.call("preparing a frame", file: file))
    }

    // MARK: Picture

    package var width: Int { Int(pointer.pointee.width) }
    package var height: Int { Int(pointer.pointee.height) }
    package var pixelFormat: PixelFormat { PixelFormat(AVPixelFormat(rawValue: pointer.pointee.format)) }

    package var color: ColorDescription {
        get {
            let f = pointer.pointee
            return ColorDescription(primaries: f.color_primaries, transfer: f.color_trc, matrix: f.colorspace, range: f.color_range,
                                    chromaLocation: f.chroma_location)
        }
        set {
            pointer.pointee.color_primaries = newValue.primaries
            pointer.pointee.color_trc = newValue.transfer
            pointer.pointee.colorspace = newValue.matrix
            pointer.pointee.color_range = newValue.range
            pointer.pointee.chroma_location = newValue.chromaLocation
        }
    }

    /// The stored pixels' shape, as the frame says it (0/1 when it does not).
    package var sampleAspectRatio: Rational {
        get { Rational(pointer.pointee.sample_aspect_ratio) }
        set { pointer.pointee.sample_aspect_ratio = newValue.av }
    }

    /// A plane's first byte and the bytes from one row to the next (`AVFrame.data`/`linesize`):
    /// valid only inside the `withPlane` call that gives it.
    struct Plane {
        let base: UnsafeMutablePointer<UInt8>
        let bytesPerRow: Int
    }

    /// Runs `body` with plane `index` (0…3), this frame (and so its buffers) kept alive for the
    /// call; nil when the format has no such plane. The pixels are reached only so: no pointer
    /// outlives the frame that owns it.
    func withPlane<R>(_ index: Int, _ body: (Plane) throws -> R) rethrows -> R? {
        precondition((0..<4).contains(index), "a frame has at most four planes")
        return try withExtendedLifetime(self) {
            guard let base = dataPointers[index] else { return nil }
            return try body(Plane(base: base, bytesPerRow: Int(lineSizes[index])))
        }
    }

    /// `AVFrame.data` in place: the eight plane pointers FFmpeg's calls take. The frame was
    /// allocated by FFmpeg and never moves, so the address is stable for the frame's life.
    package var dataPointers: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?> {
        (UnsafeMutableRawPointer(pointer) + Self.dataOffset).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
    }

    /// The same plane pointers, as calls that only read them take them.
    package var readOnlyDataPointers: UnsafePointer<UnsafePointer<UInt8>?> {
        UnsafeRawPointer(dataPointers).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
    }

    /// `AVFrame.linesize` in place.
    package var lineSizes: UnsafeMutablePointer<Int32> {
        (UnsafeMutableRawPointer(pointer) + Self.lineSizeOffset).assumingMemoryBound(to: Int32.self)
    }

    private static let dataOffset = storedOffset(\AVFrame.data)
    private static let lineSizeOffset = storedOffset(\AVFrame.linesize)

    private static func storedOffset<T>(_ field: KeyPath<AVFrame, T>) -> Int {
        guard let offset = MemoryLayout<AVFrame>.offset(of: field) else { preconditionFailure("AVFrame's data and linesize are stored fields") }
        return offset
    }

    // MARK: Timing and decoding

    /// The timestamp the frame is encoded with, in its stream's time base.
    package var presentationTimestamp: Int64? {
        get { pointer.pointee.pts == vwm_nopts_value() ? nil : pointer.pointee.pts }
        set { pointer.pointee.pts = newValue ?? vwm_nopts_value() }
    }

    /// The decoder's best guess at the frame's presentation timestamp.
    package var bestEffortTimestamp: Int64? {
        let pts = pointer.pointee.best_effort_timestamp
        return pts == vwm_nopts_value() ? nil : pts
    }

    /// The decode timestamp of the packet the frame came from.
    package var packetDecodeTimestamp: Int64? {
        let dts = pointer.pointee.pkt_dts
        return dts == vwm_nopts_value() ? nil : dts
    }

    /// The duration of the packet the frame came from, when known.
    package var packetDuration: Int64? { pointer.pointee.pkt_duration > 0 ? pointer.pointee.pkt_duration : nil }

    package var isKeyFrame: Bool { pointer.pointee.key_frame != 0 }

    /// The decoder concealed errors in this frame.
    package var isDamaged: Bool { pointer.pointee.decode_error_flags != 0 || pointer.pointee.flags & AV_FRAME_FLAG_CORRUPT != 0 }

    /// Lets the encoder choose the frame's type, rather than keeping the decoder's.
    package func clearPictureType() { pointer.pointee.pict_type = AV_PICTURE_TYPE_NONE }

    /// Asks the encoder to make this frame a keyframe (an IDR for x264 and x265 with `forced-idr`).
    package func requestKeyframe() { pointer.pointee.pict_type = AV_PICTURE_TYPE_I }

    // MARK: Still images

    /// The EXIF orientation FFmpeg's image decoders put in the frame's metadata (1…8).
    package var exifOrientation: Int? {
        guard let entry = av_dict_get(pointer.pointee.metadata, "Orientation", nil, 0) else { return nil }
        // FFmpeg prints EXIF shorts right-aligned ("    6"), so the spaces must go before parsing.
        let text = String(cString: entry.pointee.value).drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed()
        guard let value = Int(String(text)), (1...8).contains(value) else { return nil }
        return value
    }

    /// The ICC colour profile the decoder found, or the one an encoder should write.
    package var iccProfile: [UInt8]? {
        guard let side = av_frame_get_side_data(pointer, AV_FRAME_DATA_ICC_PROFILE), side.pointee.size > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: side.pointee.data, count: Int(side.pointee.size)))
    }

    /// The brightest the picture's content gets, in cd/m², as an HDR stream says: its content
    /// light level (MaxCLL), else its mastering display's peak; nil when it says neither.
    package var sourcePeakNits: Double? {
        if let side = av_frame_get_side_data(pointer, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL),
           side.pointee.size >= MemoryLayout<AVContentLightMetadata>.size {
            let maxCLL = side.pointee.data.withMemoryRebound(to: AVContentLightMetadata.self, capacity: 1) { $0.pointee.MaxCLL }
            if maxCLL > 0 { return Double(maxCLL) }
        }
        if let side = av_frame_get_side_data(pointer, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA),
           side.pointee.size >= MemoryLayout<AVMasteringDisplayMetadata>.size {
            let display = side.pointee.data.withMemoryRebound(to: AVMasteringDisplayMetadata.self, capacity: 1) { $0.pointee }
            if display.has_luminance != 0, display.max_luminance.den > 0, display.max_luminance.num > 0 {
                return Double(display.max_luminance.num) / Double(display.max_luminance.den)
            }
        }
        return nil
    }

    package func attachICCProfile(_ profile: [UInt8]) throws {
        guard !profile.isEmpty, av_frame_get_side_data(pointer, AV_FRAME_DATA_ICC_PROFILE) == nil else { return }
        guard let side = av_frame_new_side_data(pointer, AV_FRAME_DATA_ICC_PROFILE, profile.count) else {
            throw ResourceError.memory("attaching the colour profile")
        }
        side.pointee.data.update(from: profile, count: profile.count)
    }
}

extension Frame {
    /// The top-left `width`×`height` pixels of this RGBA frame, rows packed one after another
    /// (copied while the frame is alive).
    package func packedRGBA(width: Int, height: Int) -> [UInt8] {
        precondition(pixelFormat == .rgba && width <= self.width && height <= self.height, "packedRGBA of a smaller RGBA frame")
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        _ = withPlane(0) { plane in
            pixels.withUnsafeMutableBytes { out in
                guard let base = out.baseAddress else { return }
                for row in 0..<height {
                    (base + row * width * 4).copyMemory(from: plane.base + row * plane.bytesPerRow, byteCount: width * 4)
                }
            }
        }
        return pixels
    }
}

extension StraightRGBAImage {
    /// Runs `body` with a frame that points at this image's pixels (no copy). The frame owns
    /// no buffer and is emptied before returning, so it cannot outlive the borrow.
    package func withBorrowedFrame<R>(_ body: (Frame) throws -> R) throws -> R {
        let frame = try Frame()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = PixelFormat.rgba.av.rawValue
        return try pixels.withUnsafeBufferPointer { buffer in
            frame.dataPointers[0] = UnsafeMutablePointer(mutating: buffer.baseAddress)
            frame.lineSizes[0] = Int32(width * 4)
            defer { frame.unref() }
            return try body(frame)
        }
    }
}
