import Animation
import Foundation
import VideoWM

/// `videowm stamp INPUT... (-o OUTPUT | -d DIR) -c CONFIG [--at SECONDS] [--quality Q]`
struct StampCommand: ToolCommand {
    static let name = "stamp"
    var inputs: [String] = []
    var output: String?
    var directory: String?
    var at = 0.0
    var quality = 90
    var marks = MarkOptions()

    init(arguments: [String]) throws {
        var scanner = ArgumentScanner(arguments, command: Self.name)
        var marks = MarkOptions()
        var output: String?, directory: String?, at = 0.0, quality = 90
        try scanner.scan { option, value in
            switch option {
            case "-o", "--output": output = try value()
            case "-d", "--dir": directory = try value()
            case "--at": at = try Parse.seconds(try value(), option: option, command: Self.name)
            case "--quality": quality = try Parse.integer(try value(), option: option, command: Self.name, range: 1...100)
            default: return try marks.handle(option, value, command: Self.name)
            }
            return true
        }
        (self.marks, self.output, self.directory, self.at, self.quality) = (marks, output, directory, at, quality)
        inputs = scanner.positionals
    }

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard !inputs.isEmpty else { throw UsageError("expects at least one INPUT image", command: Self.name) }
        switch (output, directory) {
        case (nil, nil): throw UsageError("needs -o OUTPUT (one input) or -d DIR", command: Self.name)
        case (_?, _?): throw UsageError("-o and -d exclude each other", command: Self.name)
        case (_?, nil) where inputs.count > 1: throw UsageError("-o takes one input; use -d DIR for \(inputs.count) inputs", command: Self.name)
        default: break
        }
    }

    func run(console: Console) throws {
        let compositor = try marks.compositor(console: console, command: Self.name)
        let stamper = StillStamper(compositor: compositor, at: PresentationTime(seconds: at), quality: quality,
                                   overwrite: marks.overwrite, warn: console.warningHandler)
        if let output {
            try stamper.stamp(input: inputs[0], output: output)
            return
        }
        let directory = self.directory!
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder.boolValue else {
            throw OutputError(file: directory, stage: .creating, detail: "no such folder")
        }
        // Many inputs: one at a time (memory bounded by one image); a failure is reported and the rest carry on.
        var firstFailure: (any Error)?
        var inputByTarget: [String: String] = [:]
        for input in inputs {
            try Interruption.throwIfRequested()
            let target = (directory as NSString).appendingPathComponent((input as NSString).lastPathComponent)
            do {
                // Two inputs with one name (a/x.jpg, b/x.jpg) must not overwrite each other's output, even with -y.
                if let earlier = inputByTarget[target] {
                    throw OutputError(file: target, stage: .creating, detail: "also the output for \(earlier); \(input) skipped (rename one of them)")
                }
                inputByTarget[target] = input
                try stamper.stamp(input: input, output: target)
            } catch let error as InterruptedError {
                throw error
            } catch {
                console.error(errorLine(for: error))
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw CommandFailures(exitsAs: firstFailure) }
    }
}

/// `videowm thumbnail VIDEO OUTPUT --at SECONDS -c CONFIG [--quality Q]`
struct ThumbnailCommand: ToolCommand {
    static let name = "thumbnail"
    var video = ""
    var output = ""
    var at: Double?
    var quality = 90
    var marks = MarkOptions()

    init(arguments: [String]) throws {
        var scanner = ArgumentScanner(arguments, command: Self.name)
        var marks = MarkOptions()
        var at: Double?, quality = 90
        try scanner.scan { option, value in
            switch option {
            case "--at": at = try Parse.seconds(try value(), option: option, command: Self.name)
            case "--quality": quality = try Parse.integer(try value(), option: option, command: Self.name, range: 1...100)
            default: return try marks.handle(option, value, command: Self.name)
            }
            return true
        }
        (self.marks, self.at, self.quality) = (marks, at, quality)
        let files = try scanner.files(2, described: "VIDEO and OUTPUT")
        (video, output) = (files[0], files[1])
    }

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        guard at != nil else { throw UsageError("--at SECONDS is required", command: Self.name) }
    }

    func run(console: Console) throws {
        let compositor = try marks.compositor(console: console, command: Self.name)
        try ThumbnailMaker.make(video: video, output: output, at: at!, compositor: compositor, overwrite: marks.overwrite,
                                quality: quality)
    }
}

/// `videowm probe INPUT [--json]`
struct ProbeCommand: ToolCommand {
    static let name = "probe"
    var input = ""
    var json = false

    init(arguments: [String]) throws {
        var scanner = ArgumentScanner(arguments, command: Self.name)
        var json = false
        try scanner.scan { option, _ in
            if option == "--json" { json = true; return true }
            return false
        }
        self.json = json
        input = try scanner.files(1, described: "one INPUT")[0]
    }

    mutating func validate() throws {}

    func run(console: Console) throws {
        VideoWMLibrary.configureLogging(verbose: false)
        let description = try MediaDescription.probe(path: input)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(description), as: UTF8.self))
        } else {
            print(description.summary, terminator: "")
        }
    }
}
