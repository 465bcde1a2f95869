import VideoWM

/// `videowm transcode INPUT OUTPUT -c CONFIG [--var K=V]... [encode options] [-y]`
struct TranscodeCommand: ToolCommand {
    static let name = "transcode"
    var input = ""
    var output = ""
    var marks = MarkOptions()
    var encode = EncodeOptions()

    init(arguments: [String]) throws {
        var scanner = ArgumentScanner(arguments, command: Self.name)
        var marks = MarkOptions(), encode = EncodeOptions()
        try scanner.scan { option, value in
            try marks.handle(option, value, command: Self.name) || encode.handle(option, value, command: Self.name)
        }
        self.marks = marks
        self.encode = encode
        let files = try scanner.files(2, described: "INPUT and OUTPUT")
        (input, output) = (files[0], files[1])
    }

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        if encode.settings.crf != nil && encode.settings.bitRate != nil {
            throw UsageError("--crf and --bitrate exclude each other", command: Self.name)
        }
    }

    func run(console: Console) throws {
        let compositor = try marks.compositor(console: console, command: Self.name)
        let display = ProgressDisplay(mode: marks.progress, console: console, label: input)
        let transcoder = Transcoder(input: input, output: output, compositor: compositor, settings: encode.settings,
                                    overwrite: marks.overwrite, damagePolicy: encode.damagePolicy, warn: console.warningHandler,
                                    progress: { done, total, frames in display.update(done: done, total: total, frames: frames) })
        let summary = try transcoder.run()
        display.finish(damaged: summary.damagedPackets)
        if console.verbosity == .verbose {
            console.info("\(output): \(summary.videoFrames) video frames written")
        }
    }
}
