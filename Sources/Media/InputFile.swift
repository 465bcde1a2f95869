internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// An opened media file (an owned demuxing `AVFormatContext`).
///
/// Local paths may only be read through the `file` protocol, so a playlist disguised as a
/// video cannot make FFmpeg open other files or the network; http(s) is allowed only when
/// the user passed a URL.
package final class InputFile {
    let context: UnsafeMutablePointer<AVFormatContext>
    package let path: String
    /// What errors call the file: its path, or the URL a downloaded copy came from.
    let name: String

    package init(path: String, name: String? = nil) throws {
        self.path = path
        let name = name ?? path
        self.name = name
        let isURL = path.lowercased().hasPrefix("http://") || path.lowercased().hasPrefix("https://")
        if !isURL {
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw errno == ENOENT ? InputError.missing(name) : InputError(file: name, problem: .cannotOpen, code: ErrorCode(errno: errno))
            }
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw InputError(file: name, problem: .notARegularFile) }
            guard access(path, R_OK) == 0 else { throw InputError(file: name, problem: .permissionDenied) }
        }
        guard let ctx = avformat_alloc_context() else { throw ResourceError.memory("opening \(name)") }
        ctx.pointee.interrupt_callback.callback = { _ in Interruption.isRequested ? 1 : 0 }
        var options: OpaquePointer?
        av_dict_set(&options, "protocol_whitelist", isURL ? "http,https,tcp,tls,crypto" : "file", 0)
        // Media containers and still images only: playlist and concat demuxers (HLS, DASH,
        // ffconcat…) would open further files named inside the input.
        av_dict_set(&options, "format_whitelist", Self.allowedFormats, 0)
        var opened: UnsafeMutablePointer<AVFormatContext>? = ctx
        // FFmpeg's "file" protocol takes "file:" prefixes; a path with a colon would be read as a URL.
        let url = isURL ? path : "file:" + path
        let code = avformat_open_input(&opened, url, nil, &options)
        av_dict_free(&options)
        // avformat_open_input frees the context on failure.
        try check(code, MediaError.call("opening as media", file: name))
        guard let context = opened else { preconditionFailure("avformat_open_input succeeded without a context") }
        self.context = context
        // From here a failure closes the file in deinit.
        try check(avformat_find_stream_info(context, nil), MediaError.call("reading stream information", file: name))
        if context.pointee.iformat.pointee.flags & AVFMT_TS_DISCONT != 0 {
            // FFmpeg unwraps an MPEG-TS clock that wraps (33 bits, every 26.5 hours) soon after
            // the start by making the times before the wrap negative; an MP4's edit list would
            // then hide those frames, so such a file is moved to start at zero.
            let start = context.pointee.start_time
            continuity = TimestampContinuity(offset: start != vwm_nopts_value() && start < 0 ? -start : 0)
        }
    }

    /// Demuxes bytes in memory with the demuxer named `formatName` ("mp4"); `name` is what
    /// errors call them. No protocol is involved, so nothing else can be opened.
    package init(memory: MemoryIO, name: String, formatName: String) throws {
        path = name
        self.name = name
        memoryIO = memory
        guard let format = av_find_input_format(formatName) else { throw MediaError(file: name, detail: "no \(formatName) demuxer in this FFmpeg build") }
        guard let ctx = avformat_alloc_context() else { throw ResourceError.memory("opening \(name)") }
        ctx.pointee.interrupt_callback.callback = { _ in Interruption.isRequested ? 1 : 0 }
        ctx.pointee.pb = memory.context
        ctx.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        var opened: UnsafeMutablePointer<AVFormatContext>? = ctx
        try check(avformat_open_input(&opened, nil, format, nil), MediaError.call("opening as media", file: name))
        guard let context = opened else { preconditionFailure("avformat_open_input succeeded without a context") }
        self.context = context
        try check(avformat_find_stream_info(context, nil), MediaError.call("reading stream information", file: name))
    }

    /// The reader of an in-memory input, kept as long as the demuxer uses it.
    private var memoryIO: MemoryIO?

    /// Set for formats whose timestamps may jump (MPEG-TS…): every packet read is corrected so
    /// the times follow on, the same way for every reader of the file (the transcode, the
    /// packet index smart rendering builds, the frame locator).
    private var continuity: TimestampContinuity?

    /// Where the timestamps read so far jumped and were shifted to follow on: the time of the
    /// first packet after the jump (seconds from the file's start) and the shift (seconds).
    package var timestampJumps: [(atSeconds: Double, shiftSeconds: Double)] {
        if let replay { return replay.jumps }
        guard let continuity else { return [] }
        let start = (context.pointee.start_time == vwm_nopts_value() ? 0 : context.pointee.start_time) + continuity.initialOffset
        return continuity.jumps.map { (Double($0.at - start) / 1e6, Double($0.shift) / 1e6) }
    }

    /// Some timestamp read so far jumped.
    var hasTimestampJumps: Bool { replay?.hasJumps ?? (continuity?.jumps.isEmpty == false) }

    /// The file's format allows timestamp jumps, which reading corrects (and seeking, by the
    /// `correctedTimeline()`).
    package var correctsTimestampJumps: Bool { continuity != nil }

    deinit {
        var c: UnsafeMutablePointer<AVFormatContext>? = context
        avformat_close_input(&c)
    }

    /// Demuxers an input may be read with (FFmpeg's names; a demuxer named
    /// "mov,mp4,m4a,3gp,3g2,mj2" matches any of its parts).
    static let allowedFormats = [
        "mov", "mp4", "matroska", "webm", "avi", "mpegts", "mpeg", "mpegvideo", "flv", "ogg", "asf", "wav", "mxf", "dv",
        "h264", "hevc", "m4v", "ivf", "obu", "yuv4mpegpipe", "gif", "apng", "mp3", "aac", "flac",
        "image2", "png_pipe", "jpeg_pipe", "webp_pipe", "bmp_pipe", "tiff_pipe", "gif_pipe",
    ].joined(separator: ",")

    /// The demuxer's name ("mov,mp4,m4a,3gp,3g2,mj2").
    package var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    package var streams: [InputStream] { (0..<Int(context.pointee.nb_streams)).map(stream) }

    package func stream(_ index: Int) -> InputStream {
        precondition(index >= 0 && index < Int(context.pointee.nb_streams), "stream index out of range")
        guard let stream = context.pointee.streams[index] else { preconditionFailure("libavformat fills every slot below nb_streams") }
        return InputStream(file: self, pointer: stream)
    }

    /// The stream FFmpeg would pick as "the video", skipping cover art.
    package func bestVideoStream() -> InputStream? {
        let index = av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        guard index >= 0 else { return nil }
        let best = stream(Int(index))
        if !best.isCoverArt { return best }
        // FFmpeg may rank a large cover picture first; the video is another stream.
        return streams.first { $0.mediaType == .video && !$0.isCoverArt }
    }

    /// The first video stream, cover art included (a still image's only stream).
    package var firstVideoStream: InputStream? { streams.first { $0.mediaType == .video } }

    /// Reads the next packet; false at the end of the file.
    package func read(into packet: Packet) throws -> Bool {
        try readReportingCorrection(into: packet) != nil
    }

    /// Reads the next packet and says how many ticks (of its stream's time base) were added to
    /// its timestamps to take out the jumps (0 where nothing is corrected); nil at the end.
    func readReportingCorrection(into packet: Packet) throws -> Int64? {
        if !readAhead.isEmpty {
            let (next, ticks) = readAhead.removeFirst()
            packet.take(next)
            return ticks
        }
        guard try readFromFile(into: packet) else { return nil }
        if let replay {
            // After a seek in a file with jumps: the correction the reading from the start gave.
            let stream = packet.streamIndex
            let ticks = packet.position.flatMap { replay.ticks(stream: stream, position: $0) } ?? replayTicks[stream] ?? 0
            replayTicks[stream] = ticks
            if ticks != 0 { packet.shift(by: ticks) }
            return ticks
        }
        guard var continuity else { return 0 }
        defer { self.continuity = continuity }
        // A jump reads ahead (a bounded number of packets) to see where every stream starts again.
        var bytesAhead = 0
        let corrected = try continuity.corrections(first: packet, stamp: stamp) { () throws -> Packet? in
            guard bytesAhead < Self.readAheadBytes else { return nil }
            let next = try Packet()
            guard try readFromFile(into: next) else { return nil }
            bytesAhead += next.size
            return next
        }
        for (read, ticks) in corrected where ticks != 0 { read.shift(by: ticks) }
        readAhead = Array(corrected.dropFirst())
        return corrected[0].1
    }

    /// Packets read ahead past a timestamp jump, already corrected (with the ticks added),
    /// handed out before reading on.
    private var readAhead: [(Packet, Int64)] = []
    private static let readAheadBytes = 64 << 20

    /// The whole file's corrections, read once when first needed (`correctedTimeline()`).
    private var timeline: CorrectedTimeline?
    /// Set once a seek went by the timeline: every packet from then on is corrected from it.
    private var replay: CorrectedTimeline?
    /// The last correction handed out per stream in replay, for a packet without a position.
    private var replayTicks: [Int: Int64] = [:]

    /// For a format whose timestamps may jump: the timeline of one reading of the whole file
    /// (packets only; read on first use, then kept). Nil for other formats and for URLs.
    package func correctedTimeline() throws -> CorrectedTimeline? {
        guard continuity != nil, memoryIO == nil, !Self.isURL(path) else { return nil }
        if let timeline { return timeline }
        let read = try CorrectedTimeline.read(path: path, name: name)
        timeline = read
        return read
    }

    /// Takes `other`'s timeline when it has one (the same file opened again), so it is not read twice.
    package func shareTimeline(of other: InputFile) {
        if timeline == nil, other.path == path { timeline = other.timeline }
    }

    private static func isURL(_ path: String) -> Bool {
        path.lowercased().hasPrefix("http://") || path.lowercased().hasPrefix("https://")
    }

    private func readFromFile(into packet: Packet) throws -> Bool {
        let code = av_read_frame(context, packet.pointer)
        if code == AVErrorCode.endOfFile { return false }
        try check(code, MediaError.call("reading", file: name))
        return true
    }

    private func stamp(_ packet: Packet) -> TimestampContinuity.Stamp {
        let index = packet.streamIndex
        guard index >= 0, index < Int(context.pointee.nb_streams), let stream = context.pointee.streams[index] else {
            return .init(stream: index, timeBase: Rational(0, 1), decodeTimestamp: nil, duration: 0, isChecked: false)
        }
        let type = stream.pointee.codecpar.pointee.codec_type
        return .init(stream: index, timeBase: Rational(stream.pointee.time_base), decodeTimestamp: packet.decodeTimestamp,
                     duration: packet.duration, isChecked: type == AVMEDIA_TYPE_VIDEO || type == AVMEDIA_TYPE_AUDIO)
    }

    /// Seeks so that reading `stream` starts at the keyframe at or before `timestamp` (in the
    /// stream's time base, on the corrected clock `read` hands out). False when the file cannot
    /// seek there.
    ///
    /// In a file whose timestamps jump, the seek goes to the keyframe's byte position from the
    /// timeline, and the packets read after it get the corrections the reading from the start
    /// gave them; otherwise FFmpeg seeks by time, less the constant offset of a clock that wrapped.
    package func seek(_ stream: InputStream, toKeyframeBefore timestamp: Int64) -> Bool {
        readAhead = []
        var target = timestamp
        if var continuity {
            guard let timeline = try? correctedTimeline() else { return false }
            if timeline.hasJumps {
                guard let keyframe = timeline.keyframe(of: stream.index, atOrBefore: timestamp) else { return false }
                replay = timeline
                replayTicks = [:]
                return av_seek_frame(context, -1, keyframe.position, AVSEEK_FLAG_BYTE) >= 0
            }
            continuity.forgetPositions()
            self.continuity = continuity
            if stream.timeBase.isValid {
                target -= Rational(1, 1_000_000).convert(continuity.initialOffset, to: stream.timeBase)
            }
        }
        return avformat_seek_file(context, Int32(stream.index), Int64.min, target, target, 0) >= 0
    }

    /// Duration in seconds, when the container knows it.
    package var durationSeconds: Double? {
        let d = context.pointee.duration
        return d == vwm_nopts_value() || d <= 0 ? nil : Double(d) / Double(AV_TIME_BASE)
    }

    /// The file's size in bytes, when known.
    var byteCount: Int64? {
        guard let pb = context.pointee.pb else { return nil }
        let size = avio_size(pb)
        return size > 0 ? size : nil
    }

    /// The container's bit rate in bits per second, when known.
    var bitRate: Int? { context.pointee.bit_rate > 0 ? Int(context.pointee.bit_rate) : nil }
}
