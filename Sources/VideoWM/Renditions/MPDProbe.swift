import Foundation
import Packaging

/// `probe` of a DASH MPD: each Representation (its declared bandwidth, codecs, size, rates, language,
/// encryption, segment count and duration), every file it names checked to be there, and the streams of
/// the first video Representation's and each audio AdaptationSet's initialization and first segment.
///
/// The rules of `PlaylistProbe` hold for every file: only relative URLs, read inside the MPD's folder
/// or the folder above it; a named file that is missing, an addressing that names no file, or a
/// `BaseURL` that leaves the folder (another host) is an error (65). Segments are not decoded: an
/// encrypted presentation is described as well as a clear one, its key not needed.
enum MPDProbe {
    static func describe(manifest path: String) throws -> MediaDescription {
        let text = try PlaylistProbe.readPlaylist(path, kind: "a DASH MPD")
        let mpd: MediaPresentationDescription
        do {
            mpd = try MediaPresentationDescription(parsing: Array(text.utf8))
        } catch {
            throw MediaError(file: path, detail: "is " + error.description)
        }
        let directory = (path as NSString).deletingLastPathComponent
        guard let folder = PresentationLayout.realPath(directory.isEmpty ? "." : directory) else { throw InputError.missing(path) }
        let root = (folder as NSString).deletingLastPathComponent
        let base = try baseURL(mpd.baseURL, manifest: path)
        var totalBytes = 0
        var sizes: [String: Int] = [:]
        func file(_ uri: String) throws -> String {
            let resolved = try PlaylistProbe.resolve(base + uri, in: folder, root: root, playlist: path)
            if sizes.updateValue(resolved.size, forKey: resolved.path) == nil { totalBytes += resolved.size }
            return resolved.path
        }

        var representations: [MediaDescription.Representation] = []
        var streams: [MediaDescription.Stream] = []
        var describedVideo = false
        for (p, period) in mpd.periods.enumerated() {
            for (a, set) in period.adaptationSets.enumerated() {
                var describedSet = false
                for representation in set.representations {
                    let place = "Period \(p + 1), AdaptationSet \(a + 1), Representation \(representation.id)"
                    guard let files = mpd.files(of: representation, in: set), !files.media.isEmpty else {
                        throw MediaError(file: path, detail: "\(place) names no segment it can find (no SegmentList, SegmentTemplate or BaseURL that can be filled)")
                    }
                    let initialization = try files.initialization.map(file)
                    let media = try files.media.map(file)
                    representations.append(summary(of: representation, in: set, mpd: mpd, segments: files.media.count))
                    // The streams of the first video Representation and of each audio set, as a multivariant playlist's probe lists them.
                    let wanted = (set.contentType == .video && !describedVideo) || (set.contentType == .audio && !describedSet)
                    guard wanted else { continue }
                    describedSet = true
                    if set.contentType == .video { describedVideo = true }
                    if let initialization {
                        let described = try PlaylistProbe.streams(initialization: initialization, firstSegment: media[0], reportedAs: path)
                        for var stream in described.streams {
                            stream.index = streams.count
                            stream.durationSeconds = nil
                            if set.contentType == .audio { stream.language = stream.language ?? set.language }
                            streams.append(stream)
                        }
                    }
                }
                if set.contentType == .text, let first = representations.last(where: { $0.type == "text" }) {
                    streams.append(MediaDescription.Stream(index: streams.count, type: "subtitle",
                                                           codec: first.codecs.first ?? (set.mimeType.contains("vtt") ? "webvtt" : set.mimeType),
                                                           language: set.language, isCoverArt: false))
                }
            }
        }
        guard !representations.isEmpty else { throw MediaError(file: path, detail: "lists no Representation") }
        let seconds = mpd.duration > 0 ? mpd.duration : representations.compactMap(\.durationSeconds).max()
        var description = MediaDescription(file: path, format: "dash", durationSeconds: seconds,
                                           bitRate: seconds.flatMap { $0 > 0 ? Int((Double(totalBytes) * 8 / $0).rounded()) : nil },
                                           streams: streams)
        description.representations = representations
        return description
    }

    /// The MPD's own `BaseURL` as a prefix for its relative URLs: empty when it has none, a relative
    /// folder ("media/") as given; another host's or an absolute path is refused (probe reads files, not the network).
    private static func baseURL(_ base: String?, manifest path: String) throws -> String {
        guard let base, !base.isEmpty, base != "./" else { return "" }
        guard !base.hasPrefix("/"), !base.contains(":") else {
            throw MediaError(file: path, detail: "has BaseURL \(base), which is not a relative path; only files beside the MPD are read")
        }
        return base.hasSuffix("/") ? base : (base as NSString).deletingLastPathComponent + "/"
    }

    private static func summary(of representation: Representation, in set: AdaptationSet, mpd: MediaPresentationDescription,
                                segments: Int) -> MediaDescription.Representation {
        let protections = set.contentProtections + representation.contentProtections
        let scheme = protections.first { $0.schemeIDURI == ContentProtection.mp4ProtectionScheme }
        let keyID = scheme?.defaultKeyID ?? protections.lazy.compactMap(\.defaultKeyID).first
        let systems = protections.compactMap(\.systemID).map(systemName)
        let codecs = (representation.codecs ?? set.codecs).map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
        return MediaDescription.Representation(
            id: representation.id, type: set.contentType.rawValue, bandwidth: representation.bandwidth, codecs: codecs,
            width: representation.width, height: representation.height, frameRate: representation.frameRate?.framesPerSecond,
            sampleRate: representation.audioSamplingRate, channels: representation.audioChannels, language: set.language,
            encryption: scheme.map { $0.value ?? "cenc" }, keyID: keyID?.uuidString, drmSystems: systems.isEmpty ? nil : systems,
            segments: segments, durationSeconds: duration(of: representation, in: set, mpd: mpd, segments: segments))
    }

    /// Seconds its timeline (or `@duration` times its segment count) covers; a single file: the MPD's duration.
    private static func duration(of representation: Representation, in set: AdaptationSet, mpd: MediaPresentationDescription,
                                 segments: Int) -> Double? {
        let timescale: UInt32, timeline: [TimelineEntry], each: UInt64?
        switch representation.segments ?? set.segmentTemplate.map(SegmentAddressing.template) {
        case .list(let list): (timescale, timeline, each) = (list.timescale, list.timeline, list.duration)
        case .template(let template): (timescale, timeline, each) = (template.timescale, template.timeline, template.duration)
        case .single, nil: return mpd.duration > 0 ? mpd.duration : nil
        }
        guard timescale > 0 else { return nil }
        if !timeline.isEmpty {
            let ticks = TimelineEntry.segments(of: timeline).reduce(UInt64(0)) { $0 + $1.duration }
            return Double(ticks) / Double(timescale)
        }
        return each.map { min(Double($0) * Double(segments) / Double(timescale), mpd.duration > 0 ? mpd.duration : .infinity) }
    }

    private static func systemName(_ id: SystemID) -> String {
        switch id {
        case .clearKey: "ClearKey"
        case .commonSystem: "common"
        case .widevine: "Widevine"
        case .playReady: "PlayReady"
        case .fairPlay: "FairPlay"
        default: id.uuidString
        }
    }
}
