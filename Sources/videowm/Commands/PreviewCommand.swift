import VideoWM

/// `videowm preview INPUT -c CONFIG -o SHEET.png [--frames N] [--var KEY=VALUE]... [-y]`
struct PreviewCommand: ToolCommand {
    static let name = "preview"
    var input = ""
    var output: String?
    var frames = ContactSheet.defaultFrameCount
    var hdr = HDRStillRendering.toneMappedToSDR
    var marks = MarkOptions()
    var outputOptions = OutputOptions()

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .text("-o", "--output", placeholder: "FILE", help: "the sheet (.png; .jpg and .webp also work)") { $0.output = $1 },
            .integer("--frames", range: 1...ContactSheet.frameCountLimit,
                     help: "how many frames, 1…\(ContactSheet.frameCountLimit) (default \(ContactSheet.defaultFrameCount))") { $0.frames = $1 },
            .flag("--keep-hdr", help: "a PQ or HLG video's frames as they are, tagged so (default: tone-mapped to SDR)") { $0.hdr = .keptHDR },
        ]),
         MarkOptions.options.lifted(\.marks), OutputOptions.optionsForCommandsWithoutProgress.lifted(\.outputOptions)]
    }

    static var files: FileArguments<Self> { .exactly(1, described: "one INPUT video") { $0.input = $1[0] } }

    static let help = CommandHelp(
        usage: "videowm preview INPUT -c CONFIG -o SHEET.png [--frames N] [--keep-hdr] [--var KEY=VALUE]... [-y]",
        discussion: """
        Writes a contact sheet: N frames spread evenly from the first to the last, each marked
        exactly as 'videowm transcode' marks it and labelled with its time, in a grid, so
        you see the whole animation path before a long job. Tiles are at most 480 pixels on
        their longer side. A PQ or HLG (HDR) video's frames are tone-mapped to SDR (BT.2390's
        curve) and the sheet written as sRGB; --keep-hdr keeps their own signal, tagged so.
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard output != nil else { throw UsageError("-o SHEET.png is required", command: Self.name) }
    }

    func run(console: Console) throws {
        outputOptions.configure(console)
        let compositor = try marks.compositor(console: console, command: Self.name)
        try ContactSheet.make(video: input, output: output!, frames: frames, compositor: compositor, overwrite: outputOptions.overwrite,
                              hdr: hdr, warn: console.warningHandler)
    }
}
