internal import CFFmpeg
import Foundation
import Animation

/// The text subtitle streams of an input, read whole as WebVTT cue text: what an HLS
/// presentation turns into WebVTT subtitle renditions. Each event is decoded (to ASS, FFmpeg's
/// text form) and encoded again by FFmpeg's WebVTT encoder, which keeps italics, bold and
/// underline as WebVTT tags; times stay on the input's timeline (jumps taken out, as for every
/// packet `InputFile` reads). Bitmap subtitles (DVD, PGS, DVB) cannot become text: they are
/// listed apart so the caller can name them in its notice.
package struct TextSubtitleReader {
    package struct Cue: Equatable {
        package var start: PresentationTime
        package var end: PresentationTime
        package var text: String
    }

    package struct Stream {
        package var index: Int
        var codec: String
        /// The stream's ISO 639 language tag, as the file has it.
        package var language: String?
        package var title: String?
        package var cues: [Cue]
    }

    package var streams: [Stream]
    /// Bitmap subtitle streams: (index, codec name).
    package var bitmapStreams: [(index: Int, codec: String)]
    /// The earliest video presentation time (nil without video): what the cues are timed against.
    package var firstVideoTime: PresentationTime?

    /// Reads every packet of `path` once (the other streams' packets are not decoded).
    package static func read(path: String) throws -> TextSubtitleReader {
        let input = try InputFile(path: path)
        var decoders: [Int: (Decoder, Encoder)] = [:]
        var streams: [Int: Stream] = [:]
        var bitmap: [(index: Int, codec: String)] = []
        let video = input.streams.first { $0.mediaType == .video && !$0.isCoverArt }
        for stream in input.streams where stream.mediaType == .subtitle {
            guard stream.codec.isTextSubtitle else {
                bitmap.append((stream.index, stream.codec.name))
                continue
            }
            let decoder = try Decoder(stream: stream, file: path, threads: 1)
            let encoder = try Encoder(codecName: "webvtt", file: path)
            encoder.context.pointee.time_base = stream.timeBase.av
            // The ASS header carries the styles events refer to; the encoder reads it.
            let dec = decoder.context.pointee
            if let header = dec.subtitle_header, dec.subtitle_header_size > 0 {
                let size = Int(dec.subtitle_header_size)
                guard let copy = av_mallocz(size + 1)?.assumingMemoryBound(to: UInt8.self) else { throw ResourceError.memory("reading subtitles") }
                copy.update(from: header, count: size)
                encoder.context.pointee.subtitle_header = copy  // freed with the encoder's context
                encoder.context.pointee.subtitle_header_size = Int32(size)
            }
            try encoder.open(options: [:])
            decoders[stream.index] = (decoder, encoder)
            streams[stream.index] = Stream(index: stream.index, codec: stream.codec.name, language: stream.language,
                                           title: stream.tag("title"), cues: [])
        }
        var firstVideoTime: PresentationTime?
        guard !decoders.isEmpty || video != nil else {
            return TextSubtitleReader(streams: [], bitmapStreams: bitmap, firstVideoTime: nil)
        }
        let packet = try Packet()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while try input.read(into: packet) {
            defer { packet.unref() }
            let index = packet.streamIndex
            if let video, index == video.index, let pts = packet.presentationTimestamp {
                let time = video.timeBase.time(pts)
                firstVideoTime = min(firstVideoTime ?? time, time)
            }
            guard let (decoder, encoder) = decoders[index] else { continue }
            if let cue = try Self.cue(from: packet, decoder: decoder, encoder: encoder, buffer: &buffer, file: path) {
                streams[index]?.cues.append(cue)
            }
        }
        return TextSubtitleReader(streams: streams.values.sorted { $0.index < $1.index }, bitmapStreams: bitmap, firstVideoTime: firstVideoTime)
    }

    /// The event in `packet` as a cue; nil for an empty or damaged event (skipped, as a player would).
    private static func cue(from packet: Packet, decoder: Decoder, encoder: Encoder, buffer: inout [UInt8], file: String) throws -> Cue? {
        var subtitle = AVSubtitle()
        var got: Int32 = 0
        guard avcodec_decode_subtitle2(decoder.context, &subtitle, &got, packet.pointer) >= 0, got != 0 else { return nil }
        defer { avsubtitle_free(&subtitle) }
        guard subtitle.num_rects > 0, subtitle.pts != vwm_nopts_value() else { return nil }
        // pts is in microseconds; the display times are milliseconds after it.
        let base = PresentationTime(value: subtitle.pts, timescale: 1_000_000)
        var end = base + PresentationTime(milliseconds: Int64(subtitle.end_display_time))
        let start = base + PresentationTime(milliseconds: Int64(subtitle.start_display_time))
        // An event without an end (end_display_time unset) lasts as its packet says.
        if subtitle.end_display_time == 0 || subtitle.end_display_time == UInt32.max, packet.duration > 0 {
            end = start + decoder.timeBase.time(packet.duration)
        }
        let size = buffer.withUnsafeMutableBufferPointer {
            avcodec_encode_subtitle(encoder.context, $0.baseAddress, Int32($0.count), &subtitle)
        }
        try check(size, MediaError.call("reading subtitles", file: file))
        guard size > 0 else { return nil }
        let text = String(decoding: buffer[0..<Int(size)], as: UTF8.self).trimmingCharacters(in: .newlines)
        guard !text.isEmpty else { return nil }
        return Cue(start: start, end: max(end, start), text: text)
    }
}

private extension Rational {
    func time(_ ticks: Int64) -> PresentationTime {
        PresentationTime(value: ticks * Int64(numerator), timescale: Int64(denominator))
    }
}

private extension Decoder {
    var timeBase: Rational { Rational(context.pointee.pkt_timebase) }
}
