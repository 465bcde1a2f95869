import Foundation
import VideoWM

/// `videowm probe INPUT [--json]`
struct ProbeCommand: ToolCommand {
    static let name = "probe"
    var input = ""
    var json = false

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .flag("--json", help: "the same as one JSON object (sorted keys), for programs") { $0.json = true },
        ])]
    }

    static var files: FileArguments<Self> { .exactly(1, described: "one INPUT") { $0.input = $1[0] } }

    static let help = CommandHelp(
        usage: "videowm probe INPUT [--json]",
        discussion: """
        Prints what videowm sees in a file: container, duration, and for each stream its
        codec, size, pixel format, frame rate, display rotation, sample rate and language.
        A file whose timestamps jump (MPEG-TS recordings joined with cat) is read through
        (packets only, not decoded) for its durations without the jumps, and where they are.
        An HLS media playlist (.m3u8, fMP4 segments) reports the presentation: its duration
        (the sum of its segments'), its bit rate, and the streams of its initialization and
        first segment. Only the files the playlist names are read, inside its folder or the
        folder above it; a listed file that is missing is an error (65).
        """)

    mutating func validate() throws {}

    func run(console: Console) throws {
        VideoWMLibrary.configureLogging(verbose: false)
        let description = try MediaDescription.probe(path: input)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try StandardStream.output.write(String(decoding: try encoder.encode(description), as: UTF8.self) + "\n")
        } else {
            try StandardStream.output.write(description.summary)
        }
    }
}
