internal import CFFmpeg

/// An owned muxing `AVFormatContext` writing to `path`, with the container chosen from
/// `target`'s extension (the real output; `path` is its temporary sibling), or writing a
/// fragmented MP4 into memory for an HLS presentation.
///
/// Over 300 lines: both ways of writing share the stream set-up, the timestamp policy and the
/// header options; splitting them would duplicate that or spread one `AVFormatContext` over files.
package final class Muxer {
    let context: UnsafeMutablePointer<AVFormatContext>
    let path: String
    /// The output's name in errors (the real file or playlist; `path` may be its temporary sibling).
    let target: String
    package let container: Container
    /// Whether the bytes go into memory, to be taken fragment by fragment (`cutFragment`).
    package let writesFragmentsInMemory: Bool
    private var headerWritten = false
    private var ioOpen = false
    /// Ticks added to every timestamp of an output stream before muxing, by stream index.
    private var timestampShifts: [Int: Int64] = [:]

    /// A muxer writing `target`'s container to `path` (its temporary sibling).
    package init(path: String, target: OutputTarget) throws {
        context = try Self.allocate(format: target.container.format, path: path, target: target.path)
        self.path = path
        self.target = target.path
        container = target.container
        writesFragmentsInMemory = false
    }

    /// A fragmented-MP4 muxer writing into memory: what makes an HLS presentation's
    /// initialization segment; `name` names it in errors.
    package init(fragmentedMP4Named name: String) throws {
        container = .fragmentedMP4
        context = try Self.allocate(format: container.format, path: "", target: name)
        path = ""
        target = name
        writesFragmentsInMemory = true
    }

    private static func allocate(format: UnsafePointer<AVOutputFormat>, path: String, target: String) throws -> UnsafeMutablePointer<AVFormatContext> {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        let code = avformat_alloc_output_context2(&ctx, format, nil, path)
        try check(code, OutputError.call("creating the output", file: target, stage: .creating))
        guard let ctx else { throw ResourceError.memory("creating the output") }
        ctx.pointee.interrupt_callback.callback = { _ in Interruption.isRequested ? 1 : 0 }
        return ctx
    }

    deinit {
        if ioOpen {
            if writesFragmentsInMemory {
                _ = takeMemoryBytes()
            } else {
                avio_closep(&context.pointee.pb)
            }
        }
        avformat_free_context(context)
    }

    var streamCount: Int { Int(context.pointee.nb_streams) }

    // MARK: Streams

    private func newStream() throws -> UnsafeMutablePointer<AVStream> {
        guard let s = avformat_new_stream(context, nil) else { throw ResourceError.memory("adding a stream") }
        return s
    }

    /// A stream for what `encoder` (opened) produces, in place of `input`: that stream's
    /// language, title and disposition, the encoder's parameters and time base.
    func addStream(encodedBy encoder: Encoder, replacing input: InputStream) throws -> MuxedStream {
        let stream = try newStream()
        try check(avcodec_parameters_from_context(stream.pointee.codecpar, encoder.context),
                  OutputError.call("setting up stream \(input.index)", file: target))
        stream.pointee.time_base = encoder.context.pointee.time_base
        stream.pointee.disposition = input.pointer.pointee.disposition
        av_dict_copy(&stream.pointee.metadata, input.pointer.pointee.metadata, 0)
        return MuxedStream(muxer: self, stream: stream)
    }

    /// The re-encoded video in place of `input`: as `addStream(encodedBy:replacing:)`, with the
    /// input's frame rates and its display rotation (marks are drawn rotated into the stored
    /// picture, so the player's one rotation makes both picture and mark upright).
    package func addVideoStream(encodedBy encoder: Encoder, replacing input: InputStream) throws -> MuxedStream {
        let muxed = try addStream(encodedBy: encoder, replacing: input)
        let stream = muxed.stream
        stream.pointee.sample_aspect_ratio = encoder.context.pointee.sample_aspect_ratio
        stream.pointee.avg_frame_rate = input.pointer.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = input.pointer.pointee.r_frame_rate
        copyDisplayMatrix(from: input, to: stream)
        return muxed
    }

    /// A stream that receives `input`'s packets unchanged.
    package func addStream(copying input: InputStream) throws -> MuxedStream {
        let stream = try newStream()
        let source = input.pointer
        try check(avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar),
                  OutputError.call("copying stream \(input.index)", file: target))
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        stream.pointee.disposition = source.pointee.disposition
        stream.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        stream.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        stream.pointee.r_frame_rate = source.pointee.r_frame_rate
        av_dict_copy(&stream.pointee.metadata, source.pointee.metadata, 0)
        copyDisplayMatrix(from: input, to: stream)
        return MuxedStream(muxer: self, stream: stream)
    }

    /// A stream for `input`'s video spliced with re-encoded spans: the input's parameters with
    /// `extradata` as its codec header (parameter sets for both the input's and the encoder's
    /// pictures) and, when given, a sample-entry tag ("hev1": HEVC parameter sets also in band).
    package func addSplicedVideoStream(copying input: InputStream, extradata: [UInt8], tag: String?) throws -> MuxedStream {
        let muxed = try addStream(copying: input)
        guard let par = muxed.stream.pointee.codecpar else { preconditionFailure("avformat_new_stream gives every stream its parameters") }
        av_freep(&par.pointee.extradata)
        par.pointee.extradata_size = 0
        if !extradata.isEmpty {
            guard let buffer = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE))?.assumingMemoryBound(to: UInt8.self) else {
                throw ResourceError.memory("setting up the video stream")
            }
            buffer.update(from: extradata, count: extradata.count)
            par.pointee.extradata = buffer
            par.pointee.extradata_size = Int32(extradata.count)
        }
        if let tag {
            let c = Array(tag.utf8)
            precondition(c.count == 4, "a sample-entry tag has four characters")
            par.pointee.codec_tag = UInt32(c[0]) | UInt32(c[1]) << 8 | UInt32(c[2]) << 16 | UInt32(c[3]) << 24
        }
        return muxed
    }

    private func copyDisplayMatrix(from input: InputStream, to output: UnsafeMutablePointer<AVStream>) {
        var size: Int = 0
        if let matrix = av_stream_get_side_data(input.pointer, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0,
           let copy = av_stream_new_side_data(output, AV_PKT_DATA_DISPLAYMATRIX, size) {
            copy.update(from: matrix, count: size)
        }
    }

    /// Copies the input's container metadata (title, dates…) and chapters.
    /// Sets (replaces) one of the file's own tags (`title`, `comment`, `copyright`: each
    /// muxer stores them its own way, as MP4 ©nam/©cmt/cprt or Matroska tags).
    package func setTag(_ key: String, to value: String) throws {
        _ = try check(av_dict_set(&context.pointee.metadata, key, value, 0)) { _ in ResourceError.memory("setting the \(key) tag") }
    }

    package func copyMetadataAndChapters(from input: InputFile) {
        av_dict_copy(&context.pointee.metadata, input.context.pointee.metadata, 0)
        let source = input.context.pointee
        let count = Int(source.nb_chapters)
        guard count > 0, let chapters = source.chapters,
              let list = av_calloc(count, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride)?
                .assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self) else { return }
        // The muxer context owns the list and the chapters from here on (freed with it).
        context.pointee.chapters = list
        for i in 0..<count {
            guard let src = chapters[i],
                  let chapter = av_mallocz(MemoryLayout<AVChapter>.stride)?.assumingMemoryBound(to: AVChapter.self) else { continue }
            chapter.pointee.id = src.pointee.id
            chapter.pointee.time_base = src.pointee.time_base
            chapter.pointee.start = src.pointee.start
            chapter.pointee.end = src.pointee.end
            av_dict_copy(&chapter.pointee.metadata, src.pointee.metadata, 0)
            list[Int(context.pointee.nb_chapters)] = chapter
            context.pointee.nb_chapters += 1
        }
    }

    // MARK: Writing

    package func writeHeader(options: [String: String]) throws {
        if writesFragmentsInMemory {
            try check(avio_open_dyn_buf(&context.pointee.pb), OutputError.call("opening a memory buffer", file: target, stage: .creating))
            ioOpen = true
        } else if context.pointee.oformat.pointee.flags & AVFMT_NOFILE == 0 {
            var options: OpaquePointer?
            av_dict_set(&options, "protocol_whitelist", "file", 0)
            let code = avio_open2(&context.pointee.pb, "file:" + path, AVIO_FLAG_WRITE, &context.pointee.interrupt_callback, &options)
            av_dict_free(&options)
            try check(code, OutputError.call("opening for writing", file: target, stage: .creating))
            ioOpen = true
        }
        if container.family == .matroska {
            // Matroska stores negative times (a block's time is signed relative to its
            // cluster), so an audio track that starts before zero — AAC priming from an MP4 —
            // stays there instead of every stream being pushed later to make room for it.
            // WebM keeps FFmpeg's shift: browsers' readers are less forgiving.
            context.pointee.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED
        }
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        let code = avformat_write_header(context, &dict)
        av_dict_free(&dict)
        try check(code, OutputError.call("writing the header", file: target))
        headerWritten = true
        timestampShifts = opusCodecDelayShifts()
    }

    /// Matroska stores Opus's pre-skip as CodecDelay and readers subtract it from every
    /// block time, so an Opus packet at −6.5 ms must be written at 0. libavformat up to
    /// 59.30 writes the CodecDelay but not the shift (later versions do both): the first
    /// packet then lands before zero and the muxer pushes every stream 7 ms later, on each
    /// pass through the file. Do the shift ourselves there.
    private func opusCodecDelayShifts() -> [Int: Int64] {
        let fixedInLibavformat: UInt32 = 59 << 16 | 31 << 8 | 0
        guard container.family == .matroska || container.family == .webm, avformat_version() < fixedInLibavformat else { return [:] }
        var shifts: [Int: Int64] = [:]
        for i in 0..<Int(context.pointee.nb_streams) {
            guard let stream = context.pointee.streams[i], let par = stream.pointee.codecpar,
                  par.pointee.codec_id == AV_CODEC_ID_OPUS, par.pointee.initial_padding > 0 else { continue }
            // The same rounding as the CodecDelay the muxer writes and the reader subtracts.
            shifts[Int(stream.pointee.index)] = av_rescale_q(Int64(par.pointee.initial_padding), AVRational(num: 1, den: 48000),
                                                             stream.pointee.time_base)
        }
        return shifts
    }

    /// Writes a packet whose stream index and timestamps are already the output stream's.
    func write(_ packet: Packet) throws {
        if let shift = timestampShifts[packet.streamIndex] { packet.shift(by: shift) }
        let code = av_interleaved_write_frame(context, packet.pointer)
        try check(code, OutputError.call("writing", file: target))
        try checkIOError()
    }

    // MARK: Fragments in memory

    /// The media type and time base of output stream `index` (final once the header is written).
    package func streamKind(_ index: Int) -> (type: MediaType, timeBase: Rational) {
        precondition(index >= 0 && index < Int(context.pointee.nb_streams), "stream index out of range")
        guard let stream = context.pointee.streams[index] else { preconditionFailure("libavformat fills every slot below nb_streams") }
        return (MediaType(stream.pointee.codecpar.pointee.codec_type), Rational(stream.pointee.time_base))
    }

    /// Writes a packet into the fragment being built, in the order given (no interleaving).
    package func writeIntoFragment(_ packet: Packet) throws {
        precondition(writesFragmentsInMemory, "only a fragmenting muxer writes into fragments")
        try check(av_write_frame(context, packet.pointer), OutputError.call("writing", file: target))
    }

    /// Ends the fragment being built and returns every byte written since the last cut. The
    /// first cut also holds the initialization section (`ftyp`, `moov`), which the muxer writes
    /// when the first fragment is flushed (`delay_moov`), so its edit lists know where each track
    /// starts; a cut may hold only that section, the fragment's bytes then come with the next.
    package func cutFragment() throws -> [UInt8] {
        precondition(writesFragmentsInMemory && headerWritten, "cutting a fragment needs a fragmenting muxer with its header written")
        try check(av_write_frame(context, nil), OutputError.call("writing", file: target))
        let bytes = takeMemoryBytes()
        ioOpen = false
        try check(avio_open_dyn_buf(&context.pointee.pb), OutputError.call("opening a memory buffer", file: target))
        ioOpen = true
        return bytes
    }

    /// Closes the memory buffer and returns what it held.
    private func takeMemoryBytes() -> [UInt8] {
        var buffer: UnsafeMutablePointer<UInt8>?
        let size = avio_close_dyn_buf(context.pointee.pb, &buffer)
        context.pointee.pb = nil
        defer { av_free(buffer) }
        guard let buffer, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    /// Writes the trailer and closes the file, reporting any write error seen on the way
    /// (a full disk must not end in a "successful" truncated file). A fragmenting muxer's
    /// trailer is dropped: its presentation ends with the last cut.
    package func finish() throws {
        precondition(headerWritten, "finish before writeHeader")
        try check(av_write_trailer(context), OutputError.call("finishing", file: target))
        if writesFragmentsInMemory {
            _ = takeMemoryBytes()
            ioOpen = false
            return
        }
        try checkIOError()
        if ioOpen {
            let code = avio_closep(&context.pointee.pb)
            ioOpen = false
            try check(code, OutputError.call("closing", file: target))
        }
    }

    private func checkIOError() throws {
        if let pb = context.pointee.pb, pb.pointee.error < 0 {
            try check(pb.pointee.error, OutputError.call("writing", file: target))
        }
    }
}
