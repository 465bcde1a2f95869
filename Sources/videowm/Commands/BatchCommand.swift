import Foundation
import VideoWM

/// `videowm batch INPUT -c CONFIG --vars FILE.csv --output TEMPLATE [-j N] [--shard I/N] [--force] [--report FILE] [encode options]`
struct BatchCommand: ToolCommand {
    static let name = "batch"
    var input = ""
    var csvPath: String?
    var outputTemplate: String?
    /// One decode feeds this many encoders at once (`-j`).
    static let defaultOutputsPerDecode = BatchRunner.defaultOutputsPerDecode
    var outputsPerDecode = defaultOutputsPerDecode
    var shard: String?
    var shardCount: Int?
    var force = false
    var reportPath: String?
    var marks = MarkOptions()
    var encode = EncodeOptions()
    var size = ScaleOptions()
    var metadata = MetadataOptions()
    var outputOptions = OutputOptions()
    var hls = HLSOptions()
    var sharedSegments: String?
    /// The template's output, parsed once (`validate`): every row's output is of its kind and container.
    var templateTarget: OutputTarget?

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .text("--vars", placeholder: "FILE.csv", help: "the rows (RFC 4180 CSV, UTF-8, header first)", example: "rows.csv") { $0.csvPath = $1 },
            .text("-o", "--output", placeholder: "TEMPLATE", help: "output path with {column} placeholders",
                  example: "out/{id}.mp4") { $0.outputTemplate = $1 },
            .integer("-j", "--jobs", range: 1...64, help: "outputs encoded at once from one decode, 1…64 (default \(defaultOutputsPerDecode))") { $0.outputsPerDecode = $1 },
            .text("--shard", placeholder: "I/N", help: """
                  take the rows whose index (0 for the first) is ≡ I mod N; default: from \
                  SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX (Kubernetes) with the count \
                  from --shard-count N or VIDEOWM_SHARD_COUNT; else every row
                  """, example: "0/2") { $0.shard = $1 },
            .integer("--shard-count", range: 1...BatchShard.maximumCount,
                     help: "the N of a Kubernetes shard whose index is JOB_COMPLETION_INDEX (instead of VIDEOWM_SHARD_COUNT)") {
                $0.shardCount = $1
            },
            .flag("--force", help: "redo rows whose output exists (replacing it)") { $0.force = true },
            .text("--report", placeholder: "FILE", help: """
                  append one JSON line per row: {"row", "output", "status" (done, skipped, failed), "seconds", "reencoded" \
                  (share of the video re-encoded, 0…1), "error"}
                  """) { $0.reportPath = $1 },
            .text("--shared-segments", placeholder: "DIR", help: """
                  .m3u8 outputs: the folder of the segments every row shares (those showing no mark), \
                  created if missing (default: shared-segments in TEMPLATE's folder)
                  """, example: "segments") { $0.sharedSegments = $1 },
        ]),
         MarkOptions.options.helping("--var", "a value shared by every row (not a CSV column)").lifted(\.marks),
         EncodeOptions.options.lifted(\.encode),
         ScaleOptions.options.lifted(\.size), MetadataOptions.videoOptions.lifted(\.metadata),
         HLSOptions.options.lifted(\.hls),
         OutputOptions.options
            .helping("-y", "the same as --force")
            .helping("--progress", "auto (bar on a terminal), bar, json (row/progress/done objects, one a line, on stdout), none")
            .lifted(\.outputOptions)]
    }

    static var files: FileArguments<Self> { .exactly(1, described: "one INPUT video") { $0.input = $1[0] } }

    static let help = CommandHelp(
        usage: """
        videowm batch INPUT -c CONFIG --vars FILE.csv --output TEMPLATE [-j N] [--shard I/N]
                      [--force] [--report FILE] [encode options] [size options] [--set-metadata KEY=VALUE]...
        """,
        discussion: """
        One output per CSV row: the header names the variables (email,name,id,plan), each
        row fills the config's {name} placeholders and the output TEMPLATE, e.g.
        --output 'out/{id}.mp4'. Values are made safe for file names (no '/', '..', control
        characters, leading '.' or '-') and every output stays inside TEMPLATE's folder, which
        must exist (folders below it that placeholders name are created). Every row is checked
        before anything is encoded. Rows whose output exists are skipped, so a re-run after an
        interrupt does only the rest. Rows share one decode of INPUT, N outputs at a time.
        A row whose layers "unless" all leaves out gets a copy of the video, not re-encoded.

        An .m3u8 TEMPLATE (out/{id}.m3u8 or out/{id}/index.m3u8) gives each row an HLS
        playlist. With an H.264 INPUT cut on its own IDR pictures near every --segment
        seconds, a segment in which a row shows no mark is the input's packets, the same
        file for every row, written once into --shared-segments DIR under a name from its
        content; a segment in which the row's mark is visible is re-encoded and the row's
        own (--render full: every segment re-encoded, none shared). A row is done when its
        playlist exists. With --ladder/--subtitles each row's playlist is a multivariant
        playlist, and the shared folder holds every rendition's unmarked segments and
        initialization segment, the audio and the captions, each once for all rows; a row's
        own files are the segments its marks show in, per rendition, and its media playlists.
        With a variant layer (--key-file required, --segment its period) each segment's
        variants are rendered once, in every rendition, and shared; each row lists its
        codeword's, the same symbol in every rendition. Where a row's own marks show, its
        segments carry those marks without the variant layer.
        An .mpd TEMPLATE (or --dash with an .m3u8 one) gives each row, besides its HLS
        playlists, a static DASH MPD over the same segment files, shared ones included
        (stored once for both manifests); a row is then done when its MPD exists.
        --report's "bytes" is what each row added to the disk (shared files it was first to need).
        """,
        epilogue: """
        Exit: 0 when every row is done or skipped; otherwise the highest exit code among the
        failed rows (e.g. 73 output cannot be created, 74 write error); the other rows are
        still done. 64 (before anything is encoded) when a row or the template is wrong,
        66 when INPUT is missing, 130 when interrupted.
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard csvPath != nil else { throw UsageError("--vars FILE.csv is required (one row per output)", command: Self.name) }
        guard let outputTemplate else { throw UsageError("--output TEMPLATE is required, e.g. --output 'out/{id}.mp4'", command: Self.name) }
        try size.validate(command: Self.name)
        (encode.settings.scale, encode.settings.upscale) = (size.request, size.upscale)
        try metadata.validate(for: .video, command: Self.name)
        encode.settings.tags = metadata.tags
        let target = try OutputTarget(path: outputTemplate)
        try encode.validate(command: Self.name, output: target)
        templateTarget = try hls.validate(command: Self.name, output: target)
        if shard != nil && shardCount != nil {
            throw UsageError("--shard I/N already gives the count; --shard-count is for Kubernetes' JOB_COMPLETION_INDEX", command: Self.name)
        }
        // -y means what it means elsewhere: replace existing outputs.
        force = force || outputOptions.overwrite
    }

    func run(console: Console) throws {
        outputOptions.configure(console)
        let config = try marks.config(console: console, command: Self.name)
        guard let templateTarget else { preconditionFailure("validate() parses the template before run") }
        let table = try CSVTable.load(path: try csvPath.required("--vars FILE.csv", command: Self.name))
        let template = try OutputPathTemplate(try outputTemplate.required("--output TEMPLATE", command: Self.name))
        let plan = try BatchPlan(config: config, table: table, outputTemplate: template, target: templateTarget,
                                 fixedVariables: marks.variables, warn: console.warningHandler)
        let selected = try shard.map(BatchShard.parse)
            ?? BatchShard.fromEnvironment(ProcessInfo.processInfo.environment, countOverride: shardCount)
        let rows = plan.rows(in: selected)
        if selected.count > 1 {
            console.info("shard \(selected) (from \(selected.origin)): \(rows.count) of \(plan.rows.count) rows")
        }
        let report = try reportPath.map { try BatchReport(path: $0) }

        let display = BatchProgressDisplay(mode: outputOptions.progress, console: console)
        var runner = BatchRunner(input: input, config: config, rows: rows, outputDirectory: template.baseDirectory,
                                 settings: encode.settings, damagePolicy: encode.damagePolicy, outputsPerDecode: outputsPerDecode,
                                 force: force, render: encode.render, warn: console.warningHandler,
                                 notice: { console.info($0) })
        runner.hls = hls.settings
        runner.hls.sharedFolder = sharedSegments
        runner.ladder = hls.ladderOptions
        runner.protection = try hls.protection()
        runner.jobValues = marks.variables
        let summary: BatchSummary
        do {
            summary = try runner.run(onRow: { result in
                // The report is an output the user asked for: one that cannot be written stops
                // the batch (74), rather than rows being made that it would not list. It is
                // written first, so a row shown as done is in the report.
                try report?.record(result)
                display.rowFinished(result)
            }, onProgress: { display.update($0) })
        } catch {
            display.stop()
            throw error
        }
        display.finish(summary.progress)
        // The gravest failure of the rows decides the exit status; each has had its line.
        if let worst = summary.failures.max(by: { exitStatus(for: $0) < exitStatus(for: $1) }) {
            throw CommandFailures(exitsAs: worst)
        }
    }
}
