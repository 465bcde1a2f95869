/// What `probe` says of a manifest beyond its streams: a multivariant playlist's variants and
/// renditions, a DASH MPD's Representations. (Read in VideoWM, which knows the formats; kept here
/// beside `MediaDescription`, whose fields they are.)
extension MediaDescription {
    /// One `EXT-X-STREAM-INF` of a multivariant playlist, with what its media playlist says.
    public struct Variant: Sendable, Codable, Equatable {
        /// The media playlist's URI, as the multivariant playlist lists it.
        public var uri: String
        /// `BANDWIDTH`: the peak bit rate.
        public var bandwidth: Int
        /// `AVERAGE-BANDWIDTH`, when given.
        public var averageBandwidth: Int?
        /// `CODECS`, one entry per codec.
        public var codecs: [String]
        /// `RESOLUTION`'s width, when given.
        public var width: Int?
        /// `RESOLUTION`'s height, when given.
        public var height: Int?
        /// `FRAME-RATE`, when given.
        public var frameRate: Double?
        /// `AUDIO`: the audio group it plays with.
        public var audioGroup: String?
        /// `SUBTITLES`: the caption group it offers.
        public var subtitlesGroup: String?
        /// The sum of its media playlist's segments.
        public var durationSeconds: Double
        /// How many segments its media playlist lists.
        public var segments: Int

        /// The memberwise initializer, spelt out so VideoWM can call it.
        package init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, codecs: [String],
                     width: Int? = nil, height: Int? = nil, frameRate: Double? = nil, audioGroup: String? = nil,
                     subtitlesGroup: String? = nil, durationSeconds: Double, segments: Int) {
            self.uri = uri
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.audioGroup = audioGroup
            self.subtitlesGroup = subtitlesGroup
            self.durationSeconds = durationSeconds
            self.segments = segments
        }
    }

    /// One `EXT-X-MEDIA` (audio or subtitles) of a multivariant playlist.
    public struct Rendition: Sendable, Codable, Equatable {
        /// "AUDIO" or "SUBTITLES".
        public var type: String
        /// `GROUP-ID`.
        public var group: String
        /// `NAME`, what players list.
        public var name: String
        /// `LANGUAGE`, when given.
        public var language: String?
        /// `DEFAULT=YES`.
        public var isDefault: Bool
        /// `CHANNELS`, for audio, when given.
        public var channels: Int?
        /// Its media playlist's URI.
        public var uri: String
        /// The sum of its media playlist's segments.
        public var durationSeconds: Double
        /// How many segments its media playlist lists.
        public var segments: Int

        /// The memberwise initializer, spelt out so VideoWM can call it.
        package init(type: String, group: String, name: String, language: String? = nil, isDefault: Bool,
                     channels: Int? = nil, uri: String, durationSeconds: Double, segments: Int) {
            self.type = type
            self.group = group
            self.name = name
            self.language = language
            self.isDefault = isDefault
            self.channels = channels
            self.uri = uri
            self.durationSeconds = durationSeconds
            self.segments = segments
        }
    }

    /// One Representation of a DASH MPD, with what its files hold.
    public struct Representation: Sendable, Codable, Equatable {
        /// `@id`.
        public var id: String
        /// Its AdaptationSet's content type: "video", "audio" or "text".
        public var type: String
        /// `@bandwidth`: the bit rate it needs.
        public var bandwidth: Int
        /// `@codecs` (its own or its AdaptationSet's), one entry per codec.
        public var codecs: [String]
        public var width: Int?
        public var height: Int?
        public var frameRate: Double?
        public var sampleRate: Int?
        public var channels: Int?
        /// Its AdaptationSet's `@lang`.
        public var language: String?
        /// The Common Encryption scheme ("cenc", "cbcs") its `ContentProtection` declares, when it is encrypted.
        public var encryption: String?
        /// `cenc:default_KID`, when encrypted.
        public var keyID: String?
        /// The DRM systems it names (`urn:uuid:…` descriptors), by name where known ("ClearKey") else their UUID.
        public var drmSystems: [String]?
        /// How many media segments it lists (a BaseURL-only file: 1).
        public var segments: Int
        /// The sum of its segments' durations, when its timeline or segment duration says.
        public var durationSeconds: Double?

        /// The memberwise initializer, spelt out so VideoWM can call it.
        package init(id: String, type: String, bandwidth: Int, codecs: [String], width: Int? = nil, height: Int? = nil,
                     frameRate: Double? = nil, sampleRate: Int? = nil, channels: Int? = nil, language: String? = nil,
                     encryption: String? = nil, keyID: String? = nil, drmSystems: [String]? = nil, segments: Int,
                     durationSeconds: Double? = nil) {
            self.id = id
            self.type = type
            self.bandwidth = bandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.sampleRate = sampleRate
            self.channels = channels
            self.language = language
            self.encryption = encryption
            self.keyID = keyID
            self.drmSystems = drmSystems
            self.segments = segments
            self.durationSeconds = durationSeconds
        }
    }
}
