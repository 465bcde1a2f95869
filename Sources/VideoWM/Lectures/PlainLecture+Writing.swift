import Animation
import Foundation
import Overlay

extension PlainLecture {
    /// Writes whole copies of a plain lecture (docs/design/hls.md §11): every copy's rendering decided
    /// before any is written (so `--render smart` refuses up front), copies of one rendering written
    /// `writing.group` at a time, each segment's packets read once and its GOPs decoded once for
    /// the copies that re-encode it. Segments no mark shows on go to the shared folder, the same
    /// files for every copy.
    func write(_ requests: [CopyRequest], _ writing: CopyWriting) throws -> PresentationSummary {
        // One compositor per distinct set of kept layers decides the rendering (copies that differ
        // only in their variables show their marks at the same times).
        var representatives: [[Bool]: Compositor] = [:]
        var renderings: [(rendering: PresentationRendering, outcome: RenderOutcome)] = []
        for request in requests {
            let variables = values(request.variables)
            let kept = config.layers.map { !$0.isExcluded(by: variables) }
            if drawsVariants {
                renderings.append((.encoded, .full))
                continue
            }
            let compositor = try representatives[kept] ?? Compositor.forJob(config: config, variables: variables, images: images, warn: { _ in })
            representatives[kept] = compositor
            renderings.append(try source.rendering(markedBy: compositor, mode: definition.render, forBatch: definition.audience == .classOfStudents))
        }
        var sharedFolder: String?
        if definition.render != .full, let folder = writing.sharedFolder {
            sharedFolder = try Lecture.createSharedFolder(folder)
            // As for smart rendering's notice: an option that asks for every frame is simply obeyed.
            if let refusal = source.sharingRefusal, !refusal.askedByOptions {
                notices.say("\(definition.video): every row's segments are its own, none shared (\(refusal))")
            }
        }
        if let notice = VideoSource.timestampJumpNotice(path: definition.video, jumps: source.index.timestampJumps) { notices.say(notice) }

        var total = PresentationSummary(videoFrames: 0, damagedPackets: 0)
        for rendering in [PresentationRendering.sharedCopies, .encoded, .copied] {
            let members = requests.indices.filter { renderings[$0].rendering == rendering }
            for start in stride(from: 0, to: members.count, by: writing.group) {
                try Interruption.throwIfRequested()
                let group = Array(members[start..<min(start + writing.group, members.count)])
                let summary = try write(group, of: requests, rendering: rendering, outcome: { renderings[$0].outcome },
                                        sharedFolder: sharedFolder, writing)
                total.videoFrames = max(total.videoFrames, summary.videoFrames)
                total.damagedPackets += summary.damagedPackets
            }
        }
        return total
    }

    /// One group of copies of one rendering, written together.
    private func write(_ group: [Int], of requests: [CopyRequest], rendering: PresentationRendering, outcome: (Int) -> RenderOutcome,
                       sharedFolder: String?, _ writing: CopyWriting) throws -> PresentationSummary {
        var members: [(request: Int, row: PresentationRow, folder: PresentationFolder)] = []
        for n in group {
            do {
                let row = try makeRow(variables: requests[n].variables, rendering: rendering)
                if writing.createsFolders { try requests[n].createFolder() }
                let folder = try PresentationFolder(playlist: requests[n].target.path, overwrite: writing.overwrite, inputs: [definition.video],
                                                    sharedFolder: sharedFolder, warn: notices.say)
                members.append((n, row, folder))
            } catch {
                try Lecture.rethrowingStops(error) { try writing.onFailed(n, error) }
            }
        }
        guard !members.isEmpty else { return PresentationSummary(videoFrames: 0, damagedPackets: 0) }
        for member in members { writing.onStarted(member.request, rendering == .copied ? nil : outcome(member.request)) }
        return try PresentationWriter.write(members.map { ($0.row, $0.folder) }, onRowFailed: { position, error in
            try writing.onFailed(members[position].request, error)
        }, onRowWritten: { position in
            let member = members[position]
            try writing.onWritten(member.request, CopyReport(outcome: rendering == .copied ? nil : outcome(member.request),
                                                             bytes: member.folder.bytesAdded))
        }, progress: writing.progress)
    }

    /// A student's variables with the lecture's `{date}` and `{time}` where they give none.
    func values(_ variables: [String: String]) -> [String: String] {
        definition.jobValues.merging(variables) { _, given in given }
    }
}

extension Lecture {
    /// The shared folder (`--shared-segments`, else `shared-segments` beside the outputs), created if missing.
    static func createSharedFolder(_ folder: String) throws -> String {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(file: folder, stage: .creating, detail: "cannot create the shared segments' folder: \((error as NSError).localizedDescription)")
        }
        return folder
    }

    /// Hands a copy's own failure to `report`; an interrupt is no copy's failure and stops everything.
    static func rethrowingStops(_ error: Error, report: () throws -> Void) throws {
        if let interrupt = error as? InterruptedError { throw interrupt }
        try report()
    }
}
