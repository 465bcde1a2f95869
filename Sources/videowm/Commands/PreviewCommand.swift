import VideoWM

/// `videowm preview INPUT -c CONFIG -o SHEET.png [--frames N] [--var KEY=VALUE]... [-y]`
struct PreviewCommand: ToolCommand {
    static let name = "preview"
    var input = ""
    var output: String?
    var frames = ContactSheet.defaultFrameCount
    var marks = MarkOptions()

    init(arguments: [String]) throws {
        var scanner = ArgumentScanner(arguments, command: Self.name)
        var marks = MarkOptions()
        var output: String?, frames = ContactSheet.defaultFrameCount
        try scanner.scan { option, value in
            switch option {
            case "-o", "--output": output = try value()
            case "--frames":
                frames = try Parse.integer(try value(), option: option, command: Self.name, range: 1...ContactSheet.frameCountLimit)
            default: return try marks.handle(option, value, command: Self.name)
            }
            return true
        }
        (self.marks, self.output, self.frames) = (marks, output, frames)
        input = try scanner.files(1, described: "one INPUT video")[0]
    }

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard output != nil else { throw UsageError("-o SHEET.png is required", command: Self.name) }
    }

    func run(console: Console) throws {
        let compositor = try marks.compositor(console: console, command: Self.name)
        try ContactSheet.make(video: input, output: output!, frames: frames, compositor: compositor, overwrite: marks.overwrite)
    }
}
