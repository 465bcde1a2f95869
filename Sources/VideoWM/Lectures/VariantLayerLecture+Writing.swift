import Foundation
import Overlay

extension VariantLayerLecture {
    /// Writes whole copies of a variant-layer lecture, HLS presentations or media files
    /// (docs/design/variant-marks.md §6–§8): the q variants of every segment rendered once and stored in
    /// the shared folder; each copy's playlist listing its codeword's variant of every segment, and
    /// the segments its own marks show in re-encoded for it (the variant layer hidden there),
    /// `writing.group` copies at a time. A media file is the same segments in one fragmented MP4
    /// (`FragmentedMP4File`), copied into another container when its extension names one.
    func write(_ requests: [CopyRequest], _ writing: CopyWriting) throws -> PresentationSummary {
        // The shared renders on two threads where there are cores for them and codec threads are
        // not held to one (`--threads 1` asks for one core's work).
        let partner = ProcessInfo.processInfo.activeProcessorCount > 1 && definition.settings.threads != 1 ? try makeVariantLecture() : nil
        let folder = try requests.contains(where: { $0.target.kind == .hlsPresentation }) ? writing.sharedFolder.map(Lecture.createSharedFolder) : nil
        let scratch = ScratchFolder(beside: requests.first { $0.target.kind == .file }?.target.path)
        defer { scratch.remove() }
        if let notice = VideoSource.timestampJumpNotice(path: definition.video, jumps: lecture.source.index.timestampJumps) { notices.say(notice) }

        var students: [(request: Int, student: VariantLecture.Student, bytesAdded: () -> Int?)] = []
        for request in requests { try Lecture.checkCopyTarget(request.target, config: config) }
        for (n, request) in requests.enumerated() {
            do {
                let codeword = try code.codeword(variables: request.variables, config: config)
                let values = definition.jobValues.merging(request.variables) { _, given in given }
                let own = lecture.ownSegments(markedBy: try Compositor.forJob(config: config, variables: values, images: images, warn: { _ in }))
                if writing.createsFolders { try request.createFolder() }
                let storage: PresentationStorage
                let bytesAdded: () -> Int?
                if request.target.kind == .hlsPresentation {
                    let presentation = try PresentationFolder(playlist: request.target.path, overwrite: writing.overwrite,
                                                              inputs: [definition.video], sharedFolder: folder, warn: notices.say)
                    (storage, bytesAdded) = (presentation, { presentation.bytesAdded })
                } else {
                    storage = try FragmentedMP4File(target: request.target, overwrite: writing.overwrite, inputs: [definition.video],
                                                    scratch: try scratch.path())
                    bytesAdded = { nil }
                }
                let config = self.config, images = self.images, notices = self.notices
                students.append((n, VariantLecture.Student(codeword: codeword, ownSegments: own, storage: storage, makeRow: { [lecture] in
                    try lecture.row(compositor: try Compositor.forJob(config: config, variables: values, images: images, warn: notices.say),
                                    codeword: codeword)
                }), bytesAdded))
            } catch {
                try Lecture.rethrowingStops(error) { try writing.onFailed(n, error) }
            }
        }
        guard !students.isEmpty else { return PresentationSummary(videoFrames: 0, damagedPackets: 0) }
        for student in students { writing.onStarted(student.request, .full) }
        return try lecture.write(students.map(\.student), group: writing.group, partner: partner, onRowFailed: { position, error in
            try writing.onFailed(students[position].request, error)
        }, onRowWritten: { position in
            try writing.onWritten(students[position].request, CopyReport(outcome: .full, bytes: students[position].bytesAdded()))
        }, progress: writing.progress)
    }
}

/// A folder for the shared renders the media-file copies of a variant lecture are assembled from:
/// made beside the first such copy on first need, removed when the write ends.
final class ScratchFolder {
    private let parent: String?
    private var made: String?

    init(beside file: String?) {
        parent = file.map { ($0 as NSString).deletingLastPathComponent }.map { $0.isEmpty ? "." : $0 }
    }

    func path() throws -> String {
        if let made { return made }
        guard let parent else { preconditionFailure("a scratch folder beside no file") }
        let folder = (parent as NSString).appendingPathComponent(".videowm-variant-renders-\(PartialOutputFiles.randomToken())")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        } catch {
            throw OutputError(file: folder, stage: .creating, detail: "cannot create the folder for the shared renders: \((error as NSError).localizedDescription)")
        }
        made = folder
        return folder
    }

    func remove() {
        if let made { try? FileManager.default.removeItem(atPath: made) }
    }
}
