import VideoWM

/// `videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--quality Q] [-y]`
struct ThumbnailCommand: ToolCommand {
    static let name = "thumbnail"
    var video = ""
    var output = ""
    var at: Double?
    var quality = StillQuality.default
    var hdr = HDRStillRendering.toneMappedToSDR
    var marks = MarkOptions()
    var size = ScaleOptions()
    var outputOptions = OutputOptions()

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .seconds("--at", help: "the time (required)") { $0.at = $1 },
            StillQuality.option { $0.quality = $1 },
            .flag("--keep-hdr", help: "a PQ or HLG video's frame as it is, tagged so (default: tone-mapped to SDR)") { $0.hdr = .keptHDR },
        ]),
         MarkOptions.options.lifted(\.marks), ScaleOptions.options.lifted(\.size), OutputOptions.optionsForCommandsWithoutProgress.lifted(\.outputOptions)]
    }

    static var files: FileArguments<Self> {
        .exactly(2, described: "VIDEO and OUTPUT") { $0.video = $1[0]; $0.output = $1[1] }
    }

    static let help = CommandHelp(
        usage: "videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--quality Q] [--keep-hdr] [--var KEY=VALUE]... [size options] [-y]",
        discussion: """
        Writes the frame of VIDEO shown at SECONDS (counted from the first frame), upright,
        marked exactly as 'videowm transcode' marks that frame, as a PNG, JPEG, WebP or AVIF
        still; with a size option, as transcode with that option marks it (scaled, then marked).
        Seeks to the keyframe before SECONDS, so the end of a long video is as quick as the start.
        SECONDS runs from 0 to the video's duration (the end of its last frame, which the
        duration itself gives); a later time is a usage error naming the duration.
        A PQ or HLG (HDR) video's frame is tone-mapped to SDR (BT.2390's curve) and written as
        sRGB, so any viewer shows it right; --keep-hdr writes its own signal instead, tagged
        as such (PNG cICP, AVIF nclx, an ICC profile in JPEG and WebP).
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard at != nil else { throw UsageError("--at SECONDS is required", command: Self.name) }
        try size.validate(command: Self.name)
    }

    func run(console: Console) throws {
        outputOptions.configure(console)
        let compositor = try marks.compositor(console: console, command: Self.name)
        try ThumbnailMaker.make(video: video, output: output, at: at!, compositor: compositor, overwrite: outputOptions.overwrite,
                                quality: quality, scale: size.request, upscale: size.upscale, hdr: hdr, warn: console.warningHandler)
    }
}
