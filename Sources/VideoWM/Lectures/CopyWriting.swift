import Animation
import Foundation

/// One student's copy to write whole: who they are and where it goes.
public struct CopyRequest: Sendable {
    /// The student's variables (a batch row's, `--var`s).
    public var variables: [String: String]
    /// Where the copy goes, parsed once by the caller: an `.m3u8` playlist with its files beside
    /// it, or (a lecture with a variant layer) one media file.
    public var target: OutputTarget

    public init(variables: [String: String], target: OutputTarget) {
        self.variables = variables
        self.target = target
    }
}

/// How whole copies are written, and what the writer reports while it goes.
public struct CopyWriting {
    /// Replace a copy whose output exists (else it is an error, and the copy fails).
    public var overwrite: Bool
    /// Where files every copy shares go, named by their content, stored once (`--shared-segments`);
    /// nil: each copy keeps every file beside its playlist (one copy written alone).
    public var sharedFolder: String?
    /// Create a copy's folder when missing (a batch template's placeholder made a new one).
    public var createsFolders: Bool
    /// Copies written per pass over the input (`-j`): memory grows with it, decoding shrinks.
    public var group: Int
    /// Common Encryption of every initialization and media segment (`--encrypt cenc|cbcs`), or nil.
    /// Only a lecture with renditions takes it (its audio its own rendition, as DASH needs).
    public var protection: SegmentProtection?
    /// Copy N (an index into the requests) failed alone; the others go on. An error thrown here
    /// stops the whole write (a report that cannot be written).
    public var onFailed: (Int, Error) throws -> Void
    /// Copy N is about to be written, its rendering decided (nil: its video copied untouched).
    public var onStarted: (Int, RenderOutcome?) -> Void = { _, _ in }
    /// Copy N is complete, its playlist or file published.
    public var onWritten: (Int, CopyReport) throws -> Void
    /// Presentation time reached and video frames written so far.
    public var progress: (PresentationTime, Int) -> Void

    public init(overwrite: Bool, sharedFolder: String?, createsFolders: Bool = false, group: Int = 1,
                onFailed: @escaping (Int, Error) throws -> Void, onWritten: @escaping (Int, CopyReport) throws -> Void = { _, _ in },
                progress: @escaping (PresentationTime, Int) -> Void = { _, _ in }) {
        precondition(group >= 1, "a group holds one copy at least")
        self.overwrite = overwrite
        self.sharedFolder = sharedFolder
        self.createsFolders = createsFolders
        self.group = group
        self.onFailed = onFailed
        self.onWritten = onWritten
        self.progress = progress
    }
}

/// What one copy written whole took.
public struct CopyReport: Sendable {
    /// How its video was rendered (nil: copied untouched).
    public var outcome: RenderOutcome?
    /// Bytes its files added to the output (nil when not counted).
    public var bytes: Int?
}

extension Lecture {
    /// Writes every resource of the copies `requests` name: each copy's files published as they are
    /// made, its playlists last; files every copy shares made once per run and stored once. Copies
    /// go `writing.group` at a time through one pass over the input each (a segment's packets read
    /// once, its GOPs decoded once for every encoder that needs them). A copy whose own work fails
    /// is abandoned alone (`writing.onFailed`); an error of the input itself, or an interrupt,
    /// abandons every copy still open and is thrown.
    ///
    /// These are the bytes `StudentCopy.render` makes one resource at a time, and a server serves.
    ///
    /// A copy whose target has a DASH manifest (`OutputTarget.dashManifest`) gets its MPD once its
    /// HLS playlists are published, describing the same segment files (`DASHManifest`); an MPD that
    /// exists without `writing.overwrite` fails the copy before anything of it is written.
    public func write(_ given: [CopyRequest], _ writing: CopyWriting) throws -> PresentationSummary {
        var kept: [Int] = []
        for (n, request) in given.enumerated() {
            do {
                try request.checkDASHManifest(overwrite: writing.overwrite, createsFolders: writing.createsFolders, input: definition.video)
                kept.append(n)
            } catch {
                try Lecture.rethrowingStops(error) { try writing.onFailed(n, error) }
            }
        }
        let requests = kept.map { given[$0] }
        guard !requests.isEmpty else { return PresentationSummary(videoFrames: 0, damagedPackets: 0) }
        if let protection = writing.protection {
            guard definition.hasRenditions, !requests.contains(where: { $0.target.kind != .hlsPresentation }) else {
                throw RequestError(subject: "--encrypt", problem: "encrypts the segments of a presentation with renditions (.m3u8 or .mpd, its audio a rendition of its own); this output has none")
            }
            if protection.scheme == nil, requests.contains(where: { $0.target.dashManifest != nil }) {
                throw RequestError(subject: "--encrypt aes-128", problem: "encrypts HLS segments whole, which DASH players cannot decrypt; use cenc or cbcs for a DASH output")
            }
        }
        var writing = writing
        let outer = writing
        writing.onFailed = { try outer.onFailed(kept[$0], $1) }
        writing.onStarted = { outer.onStarted(kept[$0], $1) }
        writing.onWritten = { [definition] n, report in
            let request = requests[n]
            guard let manifest = request.target.dashManifest else { return try outer.onWritten(kept[n], report) }
            let size: Int
            do {
                size = try DASHManifest.write(playlist: request.target.path, manifest: manifest, overwrite: outer.overwrite,
                                              inputs: [definition.video], protection: outer.protection)
            } catch {
                return try Lecture.rethrowingStops(error) { try outer.onFailed(kept[n], error) }
            }
            var report = report
            report.bytes = report.bytes.map { $0 + size }
            try outer.onWritten(kept[n], report)
        }
        switch kind {
        case .plain(let lecture): return try lecture.write(requests, writing)
        case .ladder(let lecture): return try LadderCopies.write(requests, of: lecture.ladder, definition: definition, config: config,
                                                                 images: lecture.images, code: nil, notices: notices,
                                                                 makeRow: lecture.makeRow, writing)
        case .variants(let lecture): return try lecture.write(requests, writing)
        case .variantLadder(let lecture): return try LadderCopies.write(requests, of: lecture.ladder, definition: definition, config: config,
                                                                        images: lecture.images, code: lecture.code, notices: notices,
                                                                        makeRow: lecture.makeRow, writing)
        }
    }
}

extension Lecture {
    /// Whether a class's copies of a lecture marked by `config` can be written to `target`: with a
    /// variant layer a media-file copy is its presentation's H.264 segments joined, so the file's
    /// container must hold H.264 (`.mp4`, `.mov`, `.mkv`, `.ts`; not `.webm`). Throws `RequestError`
    /// (64) naming the output; checked before anything is written.
    public static func checkCopyTarget(_ target: OutputTarget, config: WatermarkConfig) throws {
        guard let layer = config.variantLayer, target.kind == .file, !target.container.canHold(.h264) else { return }
        throw RequestError(subject: target.path, problem: "a \(target.fileType) file cannot hold the H.264 a lecture with a variant layer (\(config.file): \(layer.path).variants) is made of; write .mp4, .mov, .mkv, .ts or .m3u8")
    }
}

extension CopyRequest {
    /// Refuses, before anything of the copy is written, a DASH manifest that could not be written
    /// (one that exists without overwriting, a folder in its place, the input itself).
    func checkDASHManifest(overwrite: Bool, createsFolders: Bool, input: String) throws {
        guard let manifest = target.dashManifest else { return }
        if createsFolders { try createFolder() }
        try AtomicOutput(target: manifest, overwrite: overwrite, inputs: [input]).discard()
    }

    /// Creates the copy's folder when a placeholder of the template made a new one (only folders
    /// below the template's own, which exists, can be missing).
    func createFolder() throws {
        let folder = (target.path as NSString).deletingLastPathComponent
        guard !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) else { return }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(file: target.path, stage: .creating, detail: "cannot create the folder \(folder): \((error as NSError).localizedDescription)")
        }
    }
}
