import Foundation

extension BatchRunner {
    /// The sharing of unmarked segments between `.m3u8` rows: the shared folder (created when
    /// missing) and the cuts every row follows; nil with a notice when the input does not allow it
    /// (`--render smart`: an error), or when `--render full` re-encodes every segment.
    func segmentSharing(for rows: [BatchRow], source: VideoSource) throws -> (settings: HLSSettings, sharing: SegmentSharing?) {
        var settings = hls
        guard render != .full, let first = rows.first(where: { $0.target.kind == .hlsPresentation }) else {
            return (settings, nil)
        }
        let folder = settings.sharedFolder ?? (outputDirectory as NSString).appendingPathComponent("shared-segments")
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw OutputError(file: folder, stage: .creating, detail: "cannot create the shared segments' folder: \((error as NSError).localizedDescription)")
        }
        settings.sharedFolder = folder
        switch try SegmentSharing.prepare(source: source, settings: self.settings, target: settings.segmentDuration, output: first.target) {
        case .success(let sharing):
            return (settings, sharing)
        case .failure(let refusal):
            if render == .smart { throw RenderError(file: input, reason: "the rows' HLS segments cannot be shared: \(refusal)") }
            // As for smart rendering's notice: an option that asks for every frame is simply obeyed.
            if !refusal.askedByOptions { warn("\(input): every row's segments are its own, none shared (\(refusal))") }
            return (settings, nil)
        }
    }
}
