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
        folder above it; a listed file that is missing is an error (65). A multivariant
        playlist lists its variants (size, BANDWIDTH/AVERAGE-BANDWIDTH, CODECS, frame rate,
        groups, and each media playlist's duration and segment count) and its audio and
        subtitle renditions, then the streams of the first variant and of each audio rendition.
        A DASH MPD (.mpd) lists its Representations (bandwidth, codecs, size, rates, language,
        segment count and duration, and for an encrypted one its scheme, default KID and DRM
        systems), checks every file its segment lists, templates and BaseURLs name by the same
        rules, and reads the streams of the first video Representation and of each audio set.
        Segments are demuxed, not decoded: an encrypted presentation needs no key.
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
