import Foundation
import LeakTrace
import VideoWM

/// `videowm trace LEAK --original INPUT -c CONFIG --vars FILE.csv [--var KEY=VALUE]... [--top N] [--json]`
struct TraceCommand: ToolCommand {
    static let name = "trace"
    static let defaultTop = 5
    var leak = ""
    var original: String?
    var csvPath: String?
    var top = defaultTop
    var json = false
    var verbosity = Console.Verbosity.normal
    var marks = MarkOptions()

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .text("--original", placeholder: "INPUT", help: "the unmarked video the copies were made from", example: "lecture.mp4") {
                $0.original = $1
            },
            .text("--vars", placeholder: "FILE.csv", help: "the rows the copies were made for (as given to batch)", example: "rows.csv") {
                $0.csvPath = $1
            },
            .integer("--top", range: 1...1_000_000, help: "how many rows to list, best first (default \(defaultTop))") { $0.top = $1 },
            .flag("--json", help: "the result as one JSON object (sorted keys), for programs") { $0.json = true },
            .flag("-q", "--quiet", help: "no warnings") { $0.verbosity = .quiet },
            .flag("-v", "--verbose", help: "more detail, including FFmpeg's own warnings") { $0.verbosity = .verbose },
        ]),
         MarkOptions.options.helping("--var", "a value every row shares (not a CSV column), as given to batch").lifted(\.marks)]
    }

    static var files: FileArguments<Self> { .exactly(1, described: "one LEAK video or picture") { $0.leak = $1[0] } }

    static let help = CommandHelp(
        usage: "videowm trace LEAK --original INPUT -c CONFIG --vars FILE.csv [--key-file FILE] [--var KEY=VALUE]... [--top N] [--json]",
        discussion: """
        Names the row whose copy LEAK was made from, by where its marks were rather than
        what they said, so it works when the leak is re-encoded, scaled, cropped, trimmed,
        re-timed and the text blurred away. Give the original video, the config and the CSV
        the copies were made with ('videowm batch'). The leak is aligned with the original in
        time and picture, the places where it differs from the original are found slot by
        slot, and every row is scored by how well its own mark path explains them. A layer
        can be traced when its position depends on the row: a "random" animation on text
        with a {column} placeholder (its seed is the rendered text).

        Give the key the copies were made with (--key-file, or VIDEOWM_KEY_FILE): each row's
        path is then derived from it, and marks that follow no row's keyed path -- a
        classmate's address drawn along the path anyone could compute without the key, or
        marks made with another key -- identify nobody and are reported as "forged or
        foreign marks". Without a key the result says that such paths can be forged.

        Prints the rows best first with their score (minus the base-10 logarithm of the
        chance that a row which did not leak explains the leak this well) and their
        false-match probability (the chance that any of the rows, none of them the source,
        would score this well). Every row whose false-match probability is at most 0.001 is
        identified, each on its own (a leak made from several copies names each of them),
        with the parts of the leak its marks explain.

        LEAK may also be one picture (PNG, JPEG, WebP, TIFF, HEIC): a screenshot of the
        player, a phone photo of the screen, a crop of a slide. The frame it shows is found in
        INPUT, the marks' text is read with Tesseract and their place compared with where
        each row's key puts its mark at that instant. A row is named when its text is read
        as close to its copy's place as a copy's own mark sits; a classmate's address typed
        where that copy never puts it is reported as a forgery, and names nobody. See
        docs/guide/tracing-a-still.md.
        """,
        epilogue: """
        Exit status: 0 when a row is identified; 1 when none is (an unmarked copy, too few
        slots, forged or foreign marks, or a leak that matches no part of INPUT); 64 for a
        config that gives every row the same path, a key file others can read, or another
        usage or config error; 65 unreadable video; 66 a missing file.
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard original != nil else { throw UsageError("--original INPUT is required", command: Self.name) }
        guard csvPath != nil else { throw UsageError("--vars FILE.csv is required", command: Self.name) }
    }

    func run(console: Console) throws {
        console.verbosity = verbosity
        VideoWMLibrary.configureLogging(verbose: verbosity == .verbose)
        let pathKey = try marks.keyFile().map { try KeyedDerivation(key: try SecretKey.read(fromFile: $0)) }
        let request = LeakTraceRequest(leak: leak, original: try original.required("--original INPUT", command: Self.name),
                                       configPath: try marks.requireConfig(command: Self.name),
                                       csvPath: try csvPath.required("--vars FILE.csv", command: Self.name), variables: marks.variables,
                                       pathKey: pathKey)
        let report = try LeakTracing.trace(request, warn: console.warningHandler)
        if json {
            print(try TraceOutput.json(report, request: request, top: top))
        } else {
            print(TraceOutput.text(report, request: request, top: top), terminator: "")
        }
        if let problem = report.problem, !json { console.info(problem) }
        if !report.namesAnybody { throw CommandFailures(exitsAs: NobodyIdentified()) }
    }
}

/// A trace that identified nobody: exit 1, with the report already printed.
struct NobodyIdentified: Error {}
