import Foundation
import Packaging

/// A written copy's DASH manifest: the static MPD (ISO/IEC 23009-1) that describes the very files
/// its HLS playlists list — the same CMAF initialization and media segments, shared ones included —
/// so one set of segments serves both. Made from what was written (the playback playlist, its media
/// playlists, each segment's `tfdt` and track runs), never from a second rendering, so it is the
/// same for every kind of lecture: the input's rendition, a ladder, a variant layer.
///
/// The shape DASH-IF's interoperability points ask for: one Period; one video AdaptationSet whose
/// Representations are the ladder's rungs, cut at the same times; one audio AdaptationSet per audio
/// rendition (a lecture of one rendition carries its audio in the same segments, one Representation
/// with both codecs). Segment names are content hashes, one per file (shared segments are named by
/// what they hold), so each Representation lists its segments (`SegmentList` with a
/// `SegmentTimeline` read from the segments): ISO BMFF main profile, since the live profile allows
/// only name templates. Captions (segmented WebVTT) are not described yet.
enum DASHManifest {
    /// The MPD of the presentation whose playback playlist is `playlist` (its URIs resolved from the
    /// playlist's folder, where the MPD goes). Throws `OutputError` naming `manifest` when a written
    /// file cannot be read back as the writer left it.
    static func describe(playlist: String, manifest: String, protection: SegmentProtection? = nil) throws -> MediaPresentationDescription {
        let folder = (playlist as NSString).deletingLastPathComponent
        let reader = WrittenFiles(folder: folder.isEmpty ? "." : folder, manifest: manifest, protection: protection)
        let text = try reader.text(of: (playlist as NSString).lastPathComponent)
        var sets: [AdaptationSet] = []
        var duration = 0.0
        var longest = 0.0
        if text.contains("#EXT-X-STREAM-INF") {
            let multivariant: MultivariantPlaylist
            do { multivariant = try MultivariantPlaylist(parsing: text) } catch { throw reader.failure("\(playlist) \(error.description)") }
            let renditions = try multivariant.orderedVariants.map { try reader.rendition(playlistURI: $0.uri) }
            // One Period start for every set: the first listed rendition's first picture, so
            // sound and every rung keep the places they have on the HLS copy's shared media timeline.
            let start = try renditions.first.map { try $0.firstPresentation() }
            var video: [Representation] = []
            for (variant, rendition) in zip(multivariant.orderedVariants, renditions) {
                duration = max(duration, rendition.duration)
                longest = max(longest, rendition.longestSegment)
                video.append(try rendition.representation(id: "video-\(video.count)", kind: .video,
                                                          frameRate: variant.frameRate.map(Self.frameRate), periodStart: start))
            }
            sets.append(AdaptationSet(id: 0, contentType: .video, mimeType: "video/mp4", segmentAlignment: true, startWithSAP: 1,
                                      representations: video))
            for (n, audio) in multivariant.renditions.filter({ $0.kind == .audio }).enumerated() {
                let rendition = try reader.rendition(playlistURI: audio.uri)
                longest = max(longest, rendition.longestSegment)
                sets.append(AdaptationSet(id: sets.count, contentType: .audio, mimeType: "audio/mp4", language: audio.language,
                                          label: audio.name, roles: audio.isDefault ? ["main"] : [], segmentAlignment: true, startWithSAP: 1,
                                          representations: [try rendition.representation(id: "audio-\(n)", kind: .audio, frameRate: nil,
                                                                                          channels: audio.channels, periodStart: start)]))
            }
        } else {
            let rendition = try reader.rendition(playlistURI: (playlist as NSString).lastPathComponent, text: text)
            duration = rendition.duration
            longest = rendition.longestSegment
            sets.append(AdaptationSet(id: 0, contentType: .video, mimeType: "video/mp4", segmentAlignment: true, startWithSAP: 1,
                                      representations: [try rendition.representation(id: "video-0", kind: .video, frameRate: nil)]))
        }
        return MediaPresentationDescription(duration: duration, minimumBufferTime: max(1, longest.rounded(.up)),
                                            periods: [Period(adaptationSets: sets)])
    }

    /// Writes the MPD of the presentation at `playlist` to `manifest`, through a temporary file renamed
    /// into place (`AtomicOutput`): after the playlists, so every file it names is there. Returns its size.
    static func write(playlist: String, manifest: String, overwrite: Bool, inputs: [String], protection: SegmentProtection?) throws -> Int {
        let bytes = Array(try describe(playlist: playlist, manifest: manifest, protection: protection).xml.utf8)
        let output = try AtomicOutput(target: manifest, overwrite: overwrite, inputs: inputs)
        try output.write(bytes)
        try output.commit()
        return bytes.count
    }

    /// `FRAME-RATE` as DASH writes it: whole rates as they are, NTSC's as `30000/1001`.
    static func frameRate(_ rate: Double) -> FrameRate {
        if abs(rate - rate.rounded()) < 0.001 { return FrameRate(max(1, Int(rate.rounded()))) }
        return FrameRate(Int((rate * 1001).rounded()), 1001)
    }
}

/// The files of one written presentation, read back for its MPD.
private struct WrittenFiles {
    let folder: String
    let manifest: String
    /// The segments' encryption: each encrypted AdaptationSet carries its `ContentProtection`.
    let protection: SegmentProtection?

    func failure(_ detail: String) -> OutputError {
        OutputError(file: manifest, stage: .writing, detail: "cannot describe the written presentation: \(detail)")
    }

    func bytes(of uri: String) throws -> [UInt8] {
        let path = (folder as NSString).appendingPathComponent(uri)
        guard let data = FileManager.default.contents(atPath: path) else { throw failure("\(path) cannot be read") }
        return [UInt8](data)
    }

    func text(of uri: String) throws -> String {
        guard let text = String(bytes: try bytes(of: uri), encoding: .utf8) else { throw failure("\(uri) is not UTF-8") }
        return text
    }

    /// A media playlist's rendition, its URIs made relative to the MPD's folder.
    func rendition(playlistURI: String, text given: String? = nil) throws -> WrittenRendition {
        // The key tag of encrypted segments (`SegmentProtection`) is the MPD's ContentProtection, not the segment list's.
        let text = try (given ?? self.text(of: playlistURI)).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("#EXT-X-KEY:") }.joined(separator: "\n")
        let playlist: MediaPlaylist
        do { playlist = try MediaPlaylist(parsing: text) } catch { throw failure("\(playlistURI) \(error.description)") }
        let base = (playlistURI as NSString).deletingLastPathComponent
        let resolve = { (uri: String) in Self.normalised(base.isEmpty ? uri : base + "/" + uri) }
        return WrittenRendition(files: self, initialization: resolve(playlist.initializationURI),
                                segments: playlist.segments.map { (resolve($0.uri), $0.duration.seconds) })
    }

    /// `a/../b/./c` as `b/c`: a URI relative to the MPD's folder, as a media playlist's was to its own.
    static func normalised(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
            if part == "..", let last = parts.last, last != ".." { parts.removeLast() } else { parts.append(part) }
        }
        return parts.joined(separator: "/")
    }
}

/// One media playlist's files: an initialization segment and media segments, as the MPD names them.
private struct WrittenRendition {
    let files: WrittenFiles
    let initialization: String
    let segments: [(uri: String, seconds: Double)]

    var duration: Double { segments.reduce(0) { $0 + $1.seconds } }
    var longestSegment: Double { segments.map(\.seconds).max() ?? 0 }

    /// The tracks its initialization segment describes, and the one its timeline follows (video
    /// when there is one).
    private func timedTrack() throws -> (tracks: [TrackDescription], timed: TrackDescription) {
        let tracks: [TrackDescription]
        do { tracks = try TrackDescription.tracks(ofInitialization: try files.bytes(of: initialization)) } catch let error as OutputError {
            throw error
        } catch { throw files.failure("\(initialization): \(error)") }
        guard let timed = tracks.first(where: { $0.kind == .video }) ?? tracks.first else { throw files.failure("\(initialization) holds no track") }
        return (tracks, timed)
    }

    /// When its first segment's first picture (or sample) is presented, in seconds of media time.
    func firstPresentation() throws -> Double {
        let (tracks, timed) = try timedTrack()
        guard let first = segments.first else { throw files.failure("\(initialization) is listed without segments") }
        let timing: SegmentTiming?
        do { timing = try SegmentTiming.read(segment: try files.bytes(of: first.uri), initialization: tracks, trackID: timed.trackID) } catch let error as OutputError {
            throw error
        } catch { throw files.failure("\(first.uri): \(error)") }
        guard let timing else { throw files.failure("\(first.uri) holds no sample of track \(timed.trackID)") }
        return Double(timing.earliestPresentationTime) / Double(max(1, timed.timescale))
    }

    /// The Representation of these files: codecs and picture size from the initialization
    /// segment's sample entries, the timeline from the segments' first track (video when there is
    /// one), the bandwidth the largest segment needs over its duration. The Period starts at
    /// `periodStart` seconds of media time (the presentation's first picture), else at this
    /// Representation's own first sample.
    func representation(id: String, kind: ContentType, frameRate: FrameRate?, channels: Int? = nil, periodStart: Double? = nil) throws -> Representation {
        let initBytes = try files.bytes(of: initialization)
        guard let entries = InitializationTrack.tracks(ofInitializationSegment: initBytes), !entries.isEmpty else {
            throw files.failure("\(initialization) holds no track")
        }
        let (tracks, timed) = try timedTrack()
        var timings: [SegmentTiming] = []
        var bandwidth = 0
        for segment in segments {
            let bytes = try files.bytes(of: segment.uri)
            let timing: SegmentTiming?
            do { timing = try SegmentTiming.read(segment: bytes, initialization: tracks, trackID: timed.trackID) } catch { throw files.failure("\(segment.uri): \(error)") }
            guard let timing else { throw files.failure("\(segment.uri) holds no sample of track \(timed.trackID)") }
            timings.append(timing)
            bandwidth = max(bandwidth, Int((Double(bytes.count * 8) / max(segment.seconds, 0.001)).rounded(.up)))
        }
        let video = entries.first { $0.kind == .video }
        let audio = entries.first { $0.kind == .audio }
        // The Period starts at the first picture shown: media times (`@t`, each segment's `tfdt` and
        // composition offsets) less the composition delay B-frames put before it, which the
        // initialization segment's edit list removes for a file reader. The same instant for every
        // set: an audio track's own first sample may come before it (AAC's priming) and is then
        // before the Period, as it is before the first picture on the HLS copy's timeline.
        let ownStart = timings.first?.earliestPresentationTime ?? 0
        let offset = UInt64(max(0, periodStart.map { Int64(($0 * Double(timed.timescale)).rounded()) } ?? ownStart))
        let list = SegmentList(timescale: timed.timescale, initialization: initialization, presentationTimeOffset: offset,
                               timeline: SegmentTiming.timeline(timings), mediaURLs: segments.map(\.uri))
        // Encrypted (`tenc` in the initialization segment): the scheme, its default KID and the
        // systems' descriptors (Clear Key, and any a CPIX document names).
        let protections = timed.protection.map { track in
            files.protection.map { ContentProtection.descriptors(scheme: track.scheme, keyID: track.keyID, keys: $0.keys, clearKeyLicenceURL: $0.licenceURL) }
                ?? [ContentProtection.mp4Protection(scheme: track.scheme, keyID: track.keyID)]
        } ?? []
        return Representation(id: id, bandwidth: max(bandwidth, 1), codecs: entries.compactMap(\.codec).joined(separator: ","),
                              width: kind == .video ? video?.displaySize?.width : nil, height: kind == .video ? video?.displaySize?.height : nil,
                              frameRate: frameRate, sampleAspectRatio: kind == .video && video != nil ? "1:1" : nil,
                              audioSamplingRate: kind == .audio ? audio?.timescale : nil, audioChannels: kind == .audio ? channels ?? audio?.channels : nil,
                              contentProtections: protections, segments: .list(list))
    }
}
