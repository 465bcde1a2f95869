import Overlay

/// How a batch's file rows are rendered (`--render`), decided before any output exists: one index
/// pass over the input and one plan per distinct set of layers a row keeps (rows that differ only
/// in their variables show their marks at the same times, so they share a plan). `.m3u8` rows are
/// `BatchRunner.runPresentations`'.
final class BatchRendering {
    enum Row {
        /// Every layer left out by `unless`: the video is copied.
        case copy
        case full(RenderOutcome)
        case spliced(SpliceJob, RenderOutcome)

        var job: SpliceJob? {
            if case .spliced(let job, _) = self { return job }
            return nil
        }

        /// The row needs every picture decoded (its own GOP selection is not known to the decoder).
        var decodesEverything: Bool {
            switch self {
            case .full: true
            case .copy, .spliced: false
            }
        }

        /// What the row's report says about its video (nil: copied).
        var outcome: RenderOutcome? {
            switch self {
            case .copy: nil
            case .full(let outcome), .spliced(_, let outcome): outcome
            }
        }
    }

    /// By row number.
    var rows: [Int: Row] = [:]
    let planner: RenderPlanner?
    /// Rows whose splice failed midway (`auto`): rendered again in full after the others.
    var retryInFull: Set<Int> = []
    /// `auto`'s notice lines, said once a row is done (a batch that fails says only its errors).
    private var pendingNotices: [String] = []

    /// Decides every row of `rows`. Throws `RenderError` for `--render smart` where a row cannot be
    /// smart-rendered; `notices` are each distinct `auto` notice, with how many rows it covers.
    init(mode: RenderMode, rows: [BatchRow], config: WatermarkConfig, source: VideoSource, settings: EncodeSettings,
         images: ImageCache) throws {
        let planner = mode == .full ? nil : RenderPlanner(mode: mode, source: source, settings: settings)
        self.planner = planner
        var representatives: [[Bool]: Compositor] = [:]
        var notices: [(line: String, rows: Int)] = []
        for row in rows {
            let kept = config.layers.map { !$0.isExcluded(by: row.variables) }
            guard kept.contains(true) else {
                // A clean row is a packet copy, unless the options ask for what a copy cannot keep.
                self.rows[row.number] = settings.copyCannotHonour ? .full(.full) : .copy
                continue
            }
            let compositor = try representatives[kept]
                ?? Compositor.forJob(config: config, variables: row.variables, images: images, warn: { _ in })
            representatives[kept] = compositor
            guard let planner else {
                self.rows[row.number] = .full(.full)
                continue
            }
            let (job, outcome) = try planner.decide(target: row.target, compositor: compositor)
            self.rows[row.number] = job.map { .spliced($0, outcome) } ?? .full(outcome)
            if let line = outcome.notice {
                if let n = notices.firstIndex(where: { $0.line == line }) { notices[n].rows += 1 } else { notices.append((line, 1)) }
            }
        }
        pendingNotices = notices.map { line, count in count == rows.count ? line : "\(line) — \(count) of \(rows.count) rows" }
    }

    /// Says the notices to `notice`, the first time only.
    func announceNotices(to notice: (String) -> Void) {
        pendingNotices.forEach(notice)
        pendingNotices = []
    }

    /// What a group's decoder must decode: only the GOPs its spliced rows re-encode, unless a row of
    /// the group renders in full (then everything); nil decodes everything.
    func decodeSelection(for group: [BatchRow]) -> VideoSource.DecodeSelection? {
        guard let planner, case .success(let index)? = try? planner.index() else { return nil }
        let kinds = group.map { rows[$0.number] ?? .full(.full) }
        return RenderPlanner.decodeSelection(index: index, for: kinds.compactMap(\.job), anyFullRender: kinds.contains { $0.decodesEverything })
    }
}
