import CFFmpeg
import Foundation

/// `videowm probe`: what the tool sees in a file.
public struct MediaDescription: Sendable, Codable {
    public struct Stream: Sendable, Codable {
        public var index: Int
        public var type: String
        public var codec: String
        public var width: Int?
        public var height: Int?
        public var pixelFormat: String?
        public var frameRate: Double?
        public var rotationDegrees: Int?
        public var sampleRate: Int?
        public var channels: Int?
        public var language: String?
        public var durationSeconds: Double?
        public var isCoverArt: Bool
    }

    public var file: String
    public var format: String
    public var durationSeconds: Double?
    public var bitRate: Int?
    public var streams: [Stream]

    public static func probe(path: String) throws -> MediaDescription {
        let input = try InputFile(path: path)
        var streams: [Stream] = []
        for i in 0..<input.streamCount {
            let s = input.stream(i)
            let par = s.pointee.codecpar.pointee
            let type = av_get_media_type_string(par.codec_type).map { String(cString: $0) } ?? "unknown"
            var stream = Stream(index: i, type: type, codec: String(cString: avcodec_get_name(par.codec_id)), isCoverArt: s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0)
            if par.codec_type == AVMEDIA_TYPE_VIDEO {
                stream.width = Int(par.width)
                stream.height = Int(par.height)
                stream.pixelFormat = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) }
                let rate = s.pointee.avg_frame_rate
                if rate.num > 0 && rate.den > 0 { stream.frameRate = Double(rate.num) / Double(rate.den) }
                stream.rotationDegrees = VideoSource.displayRotation(of: s).clockwiseQuarterTurns * 90
            } else if par.codec_type == AVMEDIA_TYPE_AUDIO {
                stream.sampleRate = Int(par.sample_rate)
                stream.channels = Int(par.ch_layout.nb_channels)
            }
            if let lang = av_dict_get(s.pointee.metadata, "language", nil, 0) {
                stream.language = String(cString: lang.pointee.value)
            }
            if s.pointee.duration != vwm_nopts_value() && s.pointee.duration > 0 {
                stream.durationSeconds = Double(s.pointee.duration) * Double(s.pointee.time_base.num) / Double(s.pointee.time_base.den)
            }
            streams.append(stream)
        }
        let bitRate = input.context.pointee.bit_rate
        return MediaDescription(file: path, format: String(cString: input.context.pointee.iformat.pointee.name),
                                durationSeconds: input.durationSeconds, bitRate: bitRate > 0 ? Int(bitRate) : nil, streams: streams)
    }

    /// A few lines for people.
    public var summary: String {
        var lines = ["\(file): \(format)" + (durationSeconds.map { String(format: ", %.3f s", $0) } ?? "") + (bitRate.map { ", \($0 / 1000) kb/s" } ?? "")]
        for s in streams {
            var parts = ["  stream \(s.index): \(s.type) \(s.codec)"]
            if let w = s.width, let h = s.height { parts.append("\(w)×\(h)") }
            if let p = s.pixelFormat { parts.append(p) }
            if let r = s.frameRate { parts.append(String(format: "%.3f fps", r)) }
            if let r = s.rotationDegrees, r != 0 { parts.append("rotated \(r)° for display") }
            if let sr = s.sampleRate { parts.append("\(sr) Hz") }
            if let c = s.channels { parts.append("\(c) ch") }
            if let l = s.language { parts.append("[\(l)]") }
            if s.isCoverArt { parts.append("(cover art)") }
            lines.append(parts.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
