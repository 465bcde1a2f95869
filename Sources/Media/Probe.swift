import Foundation

/// `videowm probe`: what the tool sees in a file.
public struct MediaDescription: Sendable, Codable {
    /// One stream of the file.
    public struct Stream: Sendable, Codable {
        /// Its index in the file.
        public var index: Int
        /// "video", "audio", "subtitle" or "data".
        public var type: String
        /// FFmpeg's name for its codec ("h264", "aac").
        public var codec: String
        /// Video: the stored width in pixels.
        public var width: Int?
        /// Video: the stored height in pixels.
        public var height: Int?
        /// Video: FFmpeg's name for the pixel format ("yuv420p").
        public var pixelFormat: String?
        /// Video: frames per second.
        public var frameRate: Double?
        /// Video: the display rotation players apply, in degrees.
        public var rotationDegrees: Int?
        /// Audio: samples per second.
        public var sampleRate: Int?
        /// Audio: the number of channels.
        public var channels: Int?
        /// Its language tag, when it has one.
        public var language: String?
        /// Its duration, when the file says.
        public var durationSeconds: Double?
        /// Whether it is an attached picture (cover art) rather than a video.
        public var isCoverArt: Bool

        /// The memberwise initializer, spelt out so VideoWM can call it.
        package init(index: Int, type: String, codec: String, width: Int? = nil, height: Int? = nil,
                     pixelFormat: String? = nil, frameRate: Double? = nil, rotationDegrees: Int? = nil,
                     sampleRate: Int? = nil, channels: Int? = nil, language: String? = nil,
                     durationSeconds: Double? = nil, isCoverArt: Bool) {
            self.index = index
            self.type = type
            self.codec = codec
            self.width = width
            self.height = height
            self.pixelFormat = pixelFormat
            self.frameRate = frameRate
            self.rotationDegrees = rotationDegrees
            self.sampleRate = sampleRate
            self.channels = channels
            self.language = language
            self.durationSeconds = durationSeconds
            self.isCoverArt = isCoverArt
        }
    }

    /// The file, as given.
    public var file: String
    /// FFmpeg's name for the container ("mov,mp4,m4a,3gp,3g2,mj2"), or "hls".
    public var format: String
    /// Without the jumps of a file whose timestamps jump (as transcode reads it).
    public var durationSeconds: Double?
    /// Bits per second over the whole file, when known.
    public var bitRate: Int?
    /// Every stream, in file order.
    public var streams: [Stream]
    /// Where the timestamps jump (seconds from the start, on the corrected clock), when they do.
    public var timestampJumpsAtSeconds: [Double]?

    /// A multivariant playlist's variants and its audio and subtitle renditions (nil otherwise).
    public var variants: [Variant]?
    /// A multivariant playlist's audio and subtitle renditions (nil otherwise).
    public var renditions: [Rendition]?

    /// A DASH MPD's Representations, every Period's in order (nil otherwise).
    public var representations: [Representation]?

    /// The memberwise initializer, spelt out so VideoWM can call it.
    package init(file: String, format: String, durationSeconds: Double? = nil, bitRate: Int? = nil,
                 streams: [Stream], timestampJumpsAtSeconds: [Double]? = nil, variants: [Variant]? = nil,
                 renditions: [Rendition]? = nil) {
        self.file = file
        self.format = format
        self.durationSeconds = durationSeconds
        self.bitRate = bitRate
        self.streams = streams
        self.timestampJumpsAtSeconds = timestampJumpsAtSeconds
        self.variants = variants
        self.renditions = renditions
    }

    /// What the media file at `path` holds (`probe(path:)`, in HLS, also reads playlists).
    package static func probe(mediaFile path: String) throws -> MediaDescription {
        describe(try InputFile(path: path), file: path)
    }

    /// What the opened `input` holds, reported as `file`.
    package static func describe(_ input: InputFile, file path: String) -> MediaDescription {
        let streams = input.streams.map { s in
            var stream = Stream(index: s.index, type: s.mediaType.name, codec: s.codec.name, isCoverArt: s.isCoverArt)
            switch s.mediaType {
            case .video:
                let video = s.video
                stream.width = video.width
                stream.height = video.height
                stream.pixelFormat = video.pixelFormat.knownName
                if s.averageFrameRate.isValid {
                    stream.frameRate = Double(s.averageFrameRate.numerator) / Double(s.averageFrameRate.denominator)
                }
                stream.rotationDegrees = video.rotation.clockwiseQuarterTurns * 90
            case .audio:
                stream.sampleRate = s.sampleRate
                stream.channels = s.channelCount
            default:
                break
            }
            stream.language = s.language
            stream.durationSeconds = s.duration.map(s.timeBase.seconds)
            return stream
        }
        var description = MediaDescription(file: path, format: input.formatName, durationSeconds: input.durationSeconds,
                                           bitRate: input.bitRate, streams: streams)
        description.takeOutTimestampJumps(of: input)
        return description
    }

    /// A file whose timestamps jump (MPEG-TS recordings joined): the container's duration counts
    /// the jumps (1000 s for a 4-s file whose second half starts 1000 s later), so the durations
    /// are those of one reading with the jumps taken out, as transcode reads it. The file's
    /// packets are read for that (not decoded); one that cannot be read keeps the container's.
    private mutating func takeOutTimestampJumps(of input: InputFile) {
        guard let timeline = try? input.correctedTimeline(), timeline.hasJumps else { return }
        let media = Set(input.streams.filter { $0.mediaType == .video || $0.mediaType == .audio }.map(\.index))
        if let corrected = timeline.durationSeconds(mediaStreams: media) {
            durationSeconds = corrected
            // FFmpeg's bit rate of such a file is its size over the duration that counts the jumps.
            if let bytes = input.byteCount, corrected > 0 { bitRate = Int((Double(bytes) * 8 / corrected).rounded()) }
        }
        for index in streams.indices {
            let stream = input.stream(streams[index].index)
            if stream.timeBase.isValid, let ticks = timeline.duration(of: stream.index) {
                streams[index].durationSeconds = stream.timeBase.seconds(ticks)
            }
        }
        timestampJumpsAtSeconds = timeline.jumps.map(\.atSeconds)
    }

    /// A few lines for people.
    public var summary: String {
        var lines = ["\(file): \(format)" + (durationSeconds.map { String(format: ", %.3f s", $0) } ?? "") + (bitRate.map { ", \($0 / 1000) kb/s" } ?? "")]
        if let jumps = timestampJumpsAtSeconds, !jumps.isEmpty {
            lines.append("  timestamps jump at " + jumps.map { String(format: "%.3f s", $0) }.joined(separator: ", ")
                         + "; times and durations are without the jumps, as transcode reads them")
        }
        for v in variants ?? [] {
            var parts = ["  variant \(v.uri)"]
            if let w = v.width, let h = v.height { parts.append("\(w)×\(h)") }
            parts.append("\(v.bandwidth / 1000) kb/s peak" + (v.averageBandwidth.map { ", \($0 / 1000) kb/s average" } ?? ""))
            if !v.codecs.isEmpty { parts.append(v.codecs.joined(separator: "+")) }
            if let r = v.frameRate { parts.append(String(format: "%.3f fps", r)) }
            if let a = v.audioGroup { parts.append("audio \"\(a)\"") }
            if let t = v.subtitlesGroup { parts.append("subtitles \"\(t)\"") }
            parts.append(String(format: "%d segments, %.3f s", v.segments, v.durationSeconds))
            lines.append(parts.joined(separator: ", "))
        }
        for r in renditions ?? [] {
            var parts = ["  \(r.type) \"\(r.group)\": \(r.name)" + (r.language.map { " [\($0)]" } ?? "") + (r.isDefault ? " (default)" : "")]
            if let c = r.channels { parts.append("\(c) ch") }
            parts.append(r.uri)
            parts.append(String(format: "%d segments, %.3f s", r.segments, r.durationSeconds))
            lines.append(parts.joined(separator: ", "))
        }
        for r in representations ?? [] {
            var parts = ["  representation \(r.id): \(r.type)" + (r.language.map { " [\($0)]" } ?? "")]
            if let w = r.width, let h = r.height { parts.append("\(w)×\(h)") }
            parts.append("\(r.bandwidth / 1000) kb/s")
            if !r.codecs.isEmpty { parts.append(r.codecs.joined(separator: "+")) }
            if let f = r.frameRate { parts.append(String(format: "%.3f fps", f)) }
            if let sr = r.sampleRate { parts.append("\(sr) Hz") }
            if let c = r.channels { parts.append("\(c) ch") }
            parts.append("\(r.segments) segment" + (r.segments == 1 ? "" : "s") + (r.durationSeconds.map { String(format: ", %.3f s", $0) } ?? ""))
            if let scheme = r.encryption {
                parts.append("encrypted \(scheme)" + (r.keyID.map { " KID \($0)" } ?? "")
                             + (r.drmSystems.map { $0.isEmpty ? "" : " (" + $0.joined(separator: ", ") + ")" } ?? ""))
            }
            lines.append(parts.joined(separator: ", "))
        }
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
