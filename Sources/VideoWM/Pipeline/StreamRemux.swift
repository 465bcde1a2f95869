/// Copies every stream of a media file into another container packet for packet, nothing
/// decoded: how a variant lecture's copy, assembled as one fragmented MP4 from the lecture's
/// shared renders and the student's own segments, becomes the Matroska or MPEG-TS file a batch
/// row or a transcode asked for. The output appears only whole (`AtomicOutput`).
enum StreamRemux {
    /// - Parameter inputs: files the output may not be (the lecture's video, its captions).
    static func copy(from source: String, into target: OutputTarget, overwrite: Bool, inputs: [String]) throws {
        precondition(target.kind == .file, "a remux writes one media file")
        let input = try InputFile(path: source)
        let file = try AtomicOutput(target: target.path, overwrite: overwrite, inputs: inputs)
        do {
            let muxer = try Muxer(path: file.temporaryPath, target: target)
            var copiers: [Int: StreamCopier] = [:]
            var videoTimeBase = Rational(1, 90_000)
            for stream in input.streams {
                guard target.container.canHold(stream.codec) else {
                    throw RequestError(subject: target.path, problem: "a \(target.fileType) file cannot hold the copy's \(stream.codec.name) \(stream.mediaType.name)")
                }
                if stream.mediaType == .video { videoTimeBase = stream.timeBase }
                copiers[stream.index] = try StreamCopier(from: stream, to: try muxer.addStream(copying: stream), file: target.path)
            }
            try muxer.writeHeader(options: muxerOptions(for: muxer, videoTimeBase: videoTimeBase))
            let packet = try Packet()
            while try input.read(into: packet) {
                defer { packet.unref() }
                try copiers[packet.streamIndex]?.copy(packet)
            }
            try muxer.finish()
            try file.commit()
        } catch {
            file.discard()
            throw error
        }
    }
}
