import Animation
import Foundation
import VideoWM

/// `videowm stamp INPUT... (-o OUTPUT | -d DIR) -c CONFIG [--at SECONDS] [--quality Q] [-y]`
struct StampCommand: ToolCommand {
    static let name = "stamp"
    var inputs: [String] = []
    var output: String?
    var directory: String?
    var at = 0.0
    var quality = StillQuality.default
    var marks = MarkOptions()
    var size = ScaleOptions()
    var metadata = MetadataOptions()
    var outputOptions = OutputOptions()

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .text("-o", "--output", placeholder: "FILE", help: "the output (one input)") { $0.output = $1 },
            .text("-d", "--dir", placeholder: "DIR", help: "output folder (any number of inputs)") { $0.directory = $1 },
            .seconds("--at", help: "time at which animations are evaluated (default 0)") { $0.at = $1 },
            StillQuality.option { $0.quality = $1 },
        ]),
         MarkOptions.options.lifted(\.marks), ScaleOptions.options.lifted(\.size), MetadataOptions.stillOptions.lifted(\.metadata),
         OutputOptions.optionsForCommandsWithoutProgress.lifted(\.outputOptions)]
    }

    static var files: FileArguments<Self> { .any(described: "INPUT...") { $0.inputs = $1 } }

    static let help = CommandHelp(
        usage: "videowm stamp INPUT... (-o OUTPUT | -d DIR) -c CONFIG [--at SECONDS] [--quality Q] [--var KEY=VALUE]... [size options] [metadata options] [-y]",
        discussion: """
        Marks still images (PNG, JPEG, WebP, TIFF, HEIC/HEIF) with the same compositor as
        video; the format follows the output's extension (PNG, JPEG, WebP, AVIF). EXIF orientation
        (an HEIC's irot/imir) is applied, so the mark lands where a person sees it and the
        output displays upright. A multi-page TIFF gives its first page, with a notice. A size
        option scales the picture (Lanczos) before it is marked. Animations are evaluated at --at
        (default 0). With -d, each input is written to DIR under its own name, one at a
        time; a failed file is reported and the others carry on (the exit code is that
        of the first failure). The ICC colour profile is kept in PNG and JPEG outputs.
        EXIF and XMP are not copied unless --keep-metadata says so; the embedded preview
        (an unmarked copy), the MakerNote and the orientation never are.
        """)

    mutating func validate() throws {
        _ = try marks.requireConfig(command: Self.name)
        try size.validate(command: Self.name)
        try metadata.validate(for: .still, command: Self.name)
        guard !inputs.isEmpty else { throw UsageError("expects at least one INPUT image", command: Self.name) }
        switch (output, directory) {
        case (nil, nil): throw UsageError("needs -o OUTPUT (one input) or -d DIR", command: Self.name)
        case (_?, _?): throw UsageError("-o and -d exclude each other", command: Self.name)
        case (_?, nil) where inputs.count > 1: throw UsageError("-o takes one input; use -d DIR for \(inputs.count) inputs", command: Self.name)
        default: break
        }
    }

    func run(console: Console) throws {
        outputOptions.configure(console)
        let compositor = try marks.compositor(console: console, command: Self.name)
        let stamper = StillStamper(compositor: compositor, at: PresentationTime(seconds: at), quality: quality,
                                   overwrite: outputOptions.overwrite, scale: size.request, upscale: size.upscale,
                                   metadata: StillMetadataChoice(kept: metadata.kept, edits: metadata.edits), warn: console.warningHandler)
        if let output {
            try stamper.stamp(input: inputs[0], output: output)
            return
        }
        let directory = try self.directory.required("-o OUTPUT or -d DIR", command: Self.name)
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
