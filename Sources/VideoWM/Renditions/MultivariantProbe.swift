import Foundation

extension MediaDescription {
    /// What `path` holds: a media file, an HLS media playlist (`PlaylistProbe`), a multivariant
    /// playlist (`MultivariantProbe`) or a DASH MPD (`MPDProbe`).
    public static func probe(path: String) throws -> MediaDescription {
        // A manifest is read as one (never by FFmpeg's HLS or DASH demuxer, which would open what it lists).
        switch (path as NSString).pathExtension.lowercased() {
        case "m3u8": break
        case "mpd": return try MPDProbe.describe(manifest: path)
        default: return try probe(mediaFile: path)
        }
        let text = try PlaylistProbe.readPlaylist(path)
        return MultivariantPlaylist.isMultivariant(text) ? try MultivariantProbe.describe(playlist: path, text: text)
            : try PlaylistProbe.describe(playlist: path)
    }
}

/// `probe` of a multivariant playlist: each variant (its declared rates, codecs, size, groups)
/// with its media playlist's duration and segment count, each audio and subtitle rendition
/// likewise, and the streams of the first variant's media and of each audio rendition.
///
/// The rules of `PlaylistProbe` hold for every file: media playlists are read only when they lie
/// inside the multivariant playlist's folder or the folder above it, each one's own files by its
/// own rules, and a listed file that is missing is an error (65).
enum MultivariantProbe {
    static func describe(playlist path: String, text: String) throws -> MediaDescription {
        let playlist: MultivariantPlaylist
        do {
            playlist = try MultivariantPlaylist(parsing: text)
        } catch {
            throw MediaError(file: path, detail: error.description)
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard let folder = PresentationLayout.realPath(directory.isEmpty ? "." : directory) else { throw InputError.missing(path) }
        let root = (folder as NSString).deletingLastPathComponent
        func media(_ uri: String) throws -> String {
            try PlaylistProbe.resolve(uri, in: folder, root: root, playlist: path).path
        }
        var streams: [MediaDescription.Stream] = []
        func add(_ found: [MediaDescription.Stream]) {
            for var stream in found {
                stream.index = streams.count
                streams.append(stream)
            }
        }
        var variants: [MediaDescription.Variant] = []
        for (n, variant) in playlist.orderedVariants.enumerated() {
            let file = try media(variant.uri)
            let described = try PlaylistProbe.describe(playlist: file)
            if n == 0 { add(described.streams) }
            let count = try MediaPlaylist(parsing: PlaylistProbe.readPlaylist(file)).segments.count
            variants.append(MediaDescription.Variant(uri: variant.uri, bandwidth: variant.bandwidth, averageBandwidth: variant.averageBandwidth,
                                                     codecs: variant.codecs, width: variant.width, height: variant.height,
                                                     frameRate: variant.frameRate, audioGroup: variant.audioGroup,
                                                     subtitlesGroup: variant.subtitlesGroup, durationSeconds: described.durationSeconds ?? 0,
                                                     segments: count))
        }
        var renditions: [MediaDescription.Rendition] = []
        for rendition in playlist.renditions {
            let file = try media(rendition.uri)
            let seconds: Double, count: Int
            switch rendition.kind {
            case .audio:
                let described = try PlaylistProbe.describe(playlist: file)
                add(described.streams.map { var stream = $0; stream.language = stream.language ?? rendition.language; return stream })
                seconds = described.durationSeconds ?? 0
                count = try MediaPlaylist(parsing: PlaylistProbe.readPlaylist(file)).segments.count
            case .subtitles:
                (seconds, count) = try subtitleDuration(file, root: root)
                add([MediaDescription.Stream(index: 0, type: "subtitle", codec: "webvtt", language: rendition.language, isCoverArt: false)])
            }
            renditions.append(MediaDescription.Rendition(type: rendition.kind == .audio ? "audio" : "subtitles", group: rendition.groupID,
                                                         name: rendition.name, language: rendition.language, isDefault: rendition.isDefault,
                                                         channels: rendition.channels, uri: rendition.uri, durationSeconds: seconds, segments: count))
        }
        var description = MediaDescription(file: path, format: "hls (multivariant)", durationSeconds: variants.first?.durationSeconds,
                                           bitRate: nil, streams: streams)
        description.variants = variants
        description.renditions = renditions
        return description
    }

    /// A WebVTT rendition's duration (its `EXTINF`s) and segment count, every segment it lists checked to be there.
    private static func subtitleDuration(_ path: String, root: String) throws -> (Double, Int) {
        let text = try PlaylistProbe.readPlaylist(path)
        let folder = (path as NSString).deletingLastPathComponent
        var seconds = 0.0
        var count = 0
        var expectsURI = false
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            if line.hasPrefix("#EXTINF:") {
                guard let value = Double(line.dropFirst("#EXTINF:".count).prefix { $0 != "," }) else {
                    throw MediaError(file: path, detail: "line '\(line.prefix(80))' cannot be read")
                }
                seconds += value
                expectsURI = true
            } else if !line.hasPrefix("#") {
                guard expectsURI else { throw MediaError(file: path, detail: "lists \(line.prefix(80)) without an EXTINF before it") }
                _ = try PlaylistProbe.resolve(line, in: folder, root: root, playlist: path)
                count += 1
                expectsURI = false
            }
        }
        return (seconds, count)
    }
}
