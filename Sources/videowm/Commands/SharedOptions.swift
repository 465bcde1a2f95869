import Foundation
import ImageMetadata
import Animation
import Overlay
import Packaging
import VideoWM

// The option groups several commands share (over 300 lines: each group is short, and they
// are kept together so that commands agree). A command includes a group with
// `Group.options.lifted(\.itsProperty)`; the group's help is printed under its title on that
// command's page.

/// The watermark's config and the values for its placeholders (every marking command).
struct MarkOptions {
    var configPath: String?
    var variables: [String: String] = [:]
    var keyFilePath: String?

    /// The variable that names the key file when `--key-file` is not given.
    static let keyFileVariable = "VIDEOWM_KEY_FILE"

    static var options: OptionGroup<Self> {
        OptionGroup("Mark options", [
            .text("-c", "--config", placeholder: "FILE", help: "watermark config (JSON)") { $0.configPath = $1 },
            .parsed("--var", placeholder: "KEY=VALUE", help: "value for a {KEY} placeholder (repeatable; kept verbatim)",
                    example: "name=Ada", parse: Parse.variable) { $0.variables[$1.key] = $1.value },
            .text("--key-file", placeholder: "FILE", help: """
                  the platform's key ('videowm keygen'; default: the file \(keyFileVariable) names): random paths that \
                  differ by row are derived from it, so nobody without it can compute a student's path
                  """, example: "platform.key") { $0.keyFilePath = $1 },
        ])
    }

    func requireConfig(command: String) throws -> String {
        guard let configPath else { throw UsageError("-c CONFIG is required", command: command) }
        return configPath
    }

    /// The key file to use: `--key-file`, else `VIDEOWM_KEY_FILE` when set and not empty.
    func keyFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        keyFilePath ?? environment[Self.keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Loads the config, bound to the key when one is given: every config or key file mistake
    /// surfaces here, before any output exists.
    func config(console: Console, command: String) throws -> WatermarkConfig {
        let config = try WatermarkConfig.load(path: try requireConfig(command: command), warn: console.warningHandler)
        guard let keyFile = keyFile() else { return config }
        return config.keyed(with: try KeyedDerivation(key: try SecretKey.read(fromFile: keyFile)))
    }

    /// Loads the config and binds the variables: every config mistake surfaces here, before any output exists.
    func compositor(console: Console, command: String) throws -> Compositor {
        try Compositor.forJob(config: try config(console: console, command: command), variables: variables, warn: console.warningHandler)
    }
}

/// How outputs are written and what the run reports (every marking command).
struct OutputOptions {
    var overwrite = false
    var verbosity = Console.Verbosity.normal
    var progress = ProgressLine.Mode.auto

    static var options: OptionGroup<Self> {
        OptionGroup("Output options", [
            .flag("-y", "--overwrite", help: "replace an existing OUTPUT") { $0.overwrite = true },
            .flag("-q", "--quiet", help: "no warnings") { $0.verbosity = .quiet },
            .flag("-v", "--verbose", help: "more detail, including FFmpeg's own warnings") { $0.verbosity = .verbose },
            .choice("--progress", among: ProgressLine.Mode.allCases,
                    help: "auto (bar on a terminal), bar, json (one object a line, on stdout), none") { $0.progress = $1 },
        ])
    }

    /// The same group for commands that draw no progress (stills, contact sheets): `--progress`
    /// is accepted there too (docs/design/contract.md lists it among every command's output options) but shows nothing.
    static var optionsForCommandsWithoutProgress: OptionGroup<Self> {
        options.helping("--progress", "auto, bar, json or none: accepted as for transcode; nothing here reports progress")
    }

    /// Applies -q/-v to the console and to FFmpeg's own log, before anything can warn.
    func configure(_ console: Console) {
        console.verbosity = verbosity
        VideoWMLibrary.configureLogging(verbose: verbosity == .verbose)
    }
}

/// The encode options of transcode and batch.
struct EncodeOptions {
    var settings = EncodeSettings()
    var damagePolicy = DamagePolicy.warn
    var render = RenderMode.auto

    static var options: OptionGroup<Self> {
        OptionGroup("Encode options", [
            .choice("--codec", placeholder: "NAME", among: VideoCodec.allCases,
                    help: "h264 (default), hevc, vp9 (default for .webm), av1") { $0.settings.codec = $1 },
            .integer("--crf", range: 0...63, help: "constant quality, lower is better: x264/x265 0…51, VP9/AV1 0…63 (default per codec)") { $0.settings.crf = $1 },
            .parsed("--preset", placeholder: "NAME", help: "encoder preset: x264/x265 ultrafast…placebo; VP9 speed 0…8, AV1 0…13 (higher is faster)",
                    example: "veryfast", parse: presetName) { $0.settings.preset = $1 },
            .parsed("--bitrate", placeholder: "RATE", help: "target bit rate instead of --crf, e.g. 2500k or 3M (at least 1k)",
                    example: "2500k", parse: Parse.bitRate) { $0.settings.bitRate = $1 },
            .parsed("--gop", placeholder: "N|Ns", help: "a keyframe every N frames, or every N seconds of presentation time (2s, 0.5s: exact, also across scene cuts; av1 takes frames only)",
                    example: "2s", parse: keyframeInterval) { $0.settings.controls.gop = $1 },
            .parsed("--maxrate", placeholder: "RATE", help: "peak bit rate of a capped --crf or --bitrate, e.g. 2M (h264, hevc; needs --bufsize; h264 then encodes on one thread, so runs repeat exactly)",
                    example: "2M", parse: Parse.bitRate) { $0.settings.controls.maxRate = $1 },
            .parsed("--bufsize", placeholder: "RATE", help: "the decoder buffer --maxrate fills, in bits, e.g. 4M (twice the rate: about 2 s)",
                    example: "4M", parse: Parse.bitRate) { $0.settings.controls.bufferSize = $1 },
            .parsed("--profile", placeholder: "P", help: "h264: baseline, main, high, high10, high422, high444; hevc: main, main10, main12, main422-10…; vp9: 0…3",
                    example: "high", parse: word) { $0.settings.controls.profile = $1 },
            .parsed("--level", placeholder: "L", help: "h264 1…6.2, hevc 1…6.2 (checked against the picture size, frame rate and --maxrate), vp9 1…6.2",
                    example: "4.1", parse: word) { $0.settings.controls.level = $1 },
            .parsed("--tune", placeholder: "T", help: "h264: film, animation, grain, stillimage, psnr, ssim, fastdecode, zerolatency; hevc: psnr, ssim, grain, zerolatency, fastdecode, animation; vp9: psnr, ssim, screen, film; av1: vq, psnr",
                    example: "film", parse: word) { $0.settings.controls.tune = $1 },
            .integer("--threads", range: 0...64, help: "codec threads (0: automatic, the default)") { $0.settings.threads = $1 },
            .choice("--audio", among: EncodeSettings.AudioMode.allCases,
                    help: "copy (default; audio the container cannot hold is re-encoded to AAC, or Opus for .webm), aac, opus, or none") {
                $0.settings.audio = $1
            },
            .choice("--errors", among: DamagePolicy.allCases,
                    help: "damaged input packets: warn (conceal, count, report; default) or fail (stop at the first: exit 65, no output)") {
                $0.damagePolicy = $1
            },
            .choice("--render", among: RenderMode.allCases,
                    help: "auto (default: smart where possible and worthwhile, else full; a notice only when it falls back for a reason you could act on), full (every frame re-encoded), or smart (only the GOPs where a mark is visible; exit 64 where impossible)") {
                $0.render = $1
            },
        ])
    }

    /// Checks what one option cannot: --crf and --bitrate together, and each value against
    /// the encoder and the container `output` (a path or a batch template, parsed once into its
    /// `OutputTarget`) picks, before any file is opened.
    func validate(command: String, output: OutputTarget) throws {
        if settings.crf != nil && settings.bitRate != nil {
            throw UsageError("--crf and --bitrate exclude each other", command: command)
        }
        try settings.validate(for: output)
    }

    private static func keyframeInterval(_ text: String, option: String, command: String) throws -> KeyframeInterval {
        guard let interval = KeyframeInterval(text) else {
            throw UsageError("\(option) takes a number of frames (60) or of seconds (2s, 0.5s), got '\(text)'", command: command)
        }
        return interval
    }

    /// A profile, level or tune name; whether the codec has it is checked in `validate`.
    private static func word(_ text: String, option: String, command: String) throws -> String {
        guard !text.isEmpty, text.count <= 20, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else {
            throw UsageError("\(option) takes a name such as those its help lists, got '\(text)'", command: command)
        }
        return text.lowercased()
    }

    private static func presetName(_ text: String, option: String, command: String) throws -> String {
        guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber }) else {
            throw UsageError("\(option) takes a preset name such as veryfast, got '\(text)'", command: command)
        }
        return text
    }
}

/// `--quality Q` of the commands that write one still (stamp and thumbnail).
enum StillQuality {
    static let `default` = 90

    static func option<Command>(set: @escaping (inout Command, Int) -> Void) -> CommandOption<Command> {
        .integer("--quality", placeholder: "Q", range: 1...100,
                 help: "JPEG/WebP quality 1…100 on libjpeg's scale (default \(StillQuality.default))", set: set)
    }
}

/// `--scale WxH`, `--width W`, `--height H`, `--max-size N` and `--upscale`: the output
/// picture's size (transcode, batch, stamp), in display orientation, shape kept.
struct ScaleOptions {
    var request: ScaleRequest?
    var upscale = false
    /// The size options given, to refuse two at once rather than let the last one win.
    private var given: [String] = []

    static var options: OptionGroup<Self> {
        OptionGroup("Size options", [
            size("--scale", placeholder: "WxH", example: "1280x720", help: "the largest size inside W×H, shape kept"),
            size("--width", placeholder: "W", example: "1280", help: "W pixels wide, height following the shape"),
            size("--height", placeholder: "H", example: "720", help: "H pixels tall, width following the shape"),
            size("--max-size", placeholder: "N", example: "320", help: "the longer side N pixels (thumbnails of photos)"),
            .flag("--upscale", help: "let a size option enlarge the picture (without it a larger size keeps the input's)") { $0.upscale = true },
        ])
    }

    private static func size(_ name: String, placeholder: String, example: String, help: String) -> CommandOption<Self> {
        .parsed(name, placeholder: placeholder, help: help, example: example, parse: { text, spelling, command in
            guard let request = ScaleRequest(option: name, value: text) else {
                let shape = name == "--scale" ? "WIDTHxHEIGHT such as 1280x720" : "a number of pixels"
                throw UsageError("\(spelling) takes \(shape), 1…16384, got '\(text)'", command: command)
            }
            return request
        }) { options, request in
            options.request = request
            options.given.append(name)
        }
    }

    func validate(command: String) throws {
        if given.count > 1 {
            throw UsageError("\(given.joined(separator: " and ")) exclude each other (one size option)", command: command)
        }
        if upscale && request == nil {
            throw UsageError("--upscale needs a size option (--scale, --width, --height or --max-size)", command: command)
        }
    }
}

/// `--set-metadata KEY=VALUE` (stills and video) and `--keep-metadata none|safe|all` (stills).
struct MetadataOptions {
    var kept = MetadataKept.none
    var edits = MetadataEdits()

    /// The group for stamp: EXIF/XMP kept from the input, and copyright and artist set.
    static var stillOptions: OptionGroup<Self> {
        OptionGroup("Metadata options", [
            .choice("--keep-metadata", among: MetadataKept.allCases, help: """
                    EXIF/XMP kept from the input: none (default), safe (copyright, artist, capture date, camera, lens), \
                    all (GPS too); never the embedded thumbnail, MakerNote or orientation
                    """) { $0.kept = $1 },
            setOption(for: .still, help: "EXIF and XMP copyright or artist of the output (repeatable), e.g. copyright=\"© Example U\""),
        ])
    }

    /// The group for transcode and batch: the output's container tags.
    static var videoOptions: OptionGroup<Self> {
        OptionGroup("Metadata options", [
            setOption(for: .video, help: "the output's title, comment or copyright tag (repeatable), e.g. copyright=\"© Example U\""),
        ])
    }

    private static func setOption(for target: MetadataEdits.Target, help: String) -> CommandOption<Self> {
        .text("--set-metadata", placeholder: "KEY=VALUE", help: help, example: "copyright=© Example U") { options, argument in
            options.pending.append(argument)
        }
    }

    /// `--set-metadata` arguments as given, checked in `validate` (a parse closure cannot
    /// see which were given before it, and a repeated key is refused).
    private var pending: [String] = []

    mutating func validate(for target: MetadataEdits.Target, command: String) throws {
        for argument in pending {
            do {
                try edits.add(argument, for: target)
            } catch {
                throw UsageError(error.description, command: command)
            }
        }
        pending = []
    }

    /// The video's container tags.
    var tags: [String: String] {
        var tags: [String: String] = [:]
        if let title = edits.title { tags["title"] = title }
        if let comment = edits.comment { tags["comment"] = comment }
        if let copyright = edits.copyright { tags["copyright"] = copyright }
        return tags
    }
}

/// How `.m3u8` outputs (HLS presentations) are cut, and which renditions they offer: transcode and batch.
struct HLSOptions {
    var settings = HLSSettings()
    /// `--ladder`: nil writes one rendition, the input's size (a media playlist, as before ladders).
    var ladder: LadderRequest?
    /// `--subtitles`, in the order given.
    var subtitles: [SidecarCaptions] = []
    /// `--dash`: an MPD beside the playlist, over the same segment files.
    var dash = false
    /// The output has an MPD (`--dash`, an `.mpd` OUTPUT): set by `validate`.
    private var writesDASH = false
    /// `--encrypt`: how the segments are encrypted.
    var encrypt: EncryptionMethod?
    /// `--key-uri`: where players fetch an AES-128 key.
    var keyURI: String?
    /// `--content-key-file`: the KID:KEY line or CPIX document `--encrypt` uses.
    var contentKeyFile: String?
    /// `--licence-url`: the Clear Key licence the manifests name.
    var licenceURL: String?
    static let segmentRange = 1.0...60.0

    static var options: OptionGroup<Self> {
        OptionGroup("HLS and DASH options (.m3u8 and .mpd outputs)", [
            .parsed("--segment", placeholder: "SECONDS",
                    help: "length each segment aims at, cut on the nearest keyframe, 1…60 seconds (default 6)",
                    example: "4", parse: segmentLength) { $0.settings.segment = $1 },
            .parsed("--ladder", placeholder: "auto|HEIGHT[:RATE],…", help: """
                    renditions of a multivariant playlist: auto (the input's size, at most 1080 lines, then 720, 540 and 360 \
                    below it) or heights with optional bit rates, e.g. 1080:5M,720:2800k,360 (a height without a rate gets \
                    Apple's HLS authoring rate for it; heights above the input's are capped at it, with a notice); \
                    OUTPUT becomes a multivariant playlist with an audio rendition per audio stream
                    """, example: "720,360", parse: ladderRequest) { $0.ladder = $1 },
            .parsed("--subtitles", placeholder: "FILE[:LANG[:NAME]]", help: """
                    a caption file (.srt or .vtt) to offer as a WebVTT subtitle rendition, with its language (en, pt-BR; \
                    default from a name like talk.de.srt, else und) and the name players list (repeatable); \
                    without --ladder, a multivariant playlist of the input's size
                    """, example: "talk.srt:en:English", parse: sidecar) { $0.subtitles.append($1) },
            .flag("--dash", help: """
                    also write a DASH manifest (OUTPUT with .mpd, static, ISO BMFF main profile) over the same segment files \
                    as the HLS playlist; an OUTPUT.mpd does so without it
                    """) { $0.dash = true },
            .choice("--encrypt", placeholder: "SCHEME", among: EncryptionMethod.allCases, help: """
                    encrypt every initialization and media segment with Common Encryption (cenc: AES-CTR; cbcs: AES-CBC, \
                    1:9 pattern), or each HLS media segment whole (aes-128: AES-128-CBC, HLS only, with --key-uri), audio \
                    in a rendition of its own; the MPD gets ContentProtection, the HLS playlists EXT-X-KEY; needs --content-key-file
                    """) { $0.encrypt = $1 },
            .text("--key-uri", placeholder: "URI", help: """
                    with --encrypt aes-128: the URI the HLS playlists give for the key (16 bytes the platform serves to \
                    signed-in students; never written into the output)
                    """, example: "https://platform.example/keys/lecture") { $0.keyURI = $1 },
            .text("--content-key-file", placeholder: "FILE", help: """
                    the content key for --encrypt: one line KID:KEY (32 hex digits each) or a DASH-IF CPIX document, \
                    readable by its owner only; never written into the output
                    """, example: "lecture.key") { $0.contentKeyFile = $1 },
            .text("--licence-url", placeholder: "URL", help: """
                    where browsers fetch the W3C Clear Key licence of --encrypt (the MPD's dashif:Laurl, the HLS key tag's URI; \
                    default: the HLS tag names the key ID, skd://KID)
                    """, example: "https://platform.example/licence") { $0.licenceURL = $1 },
        ])
    }

    /// `--ladder` and `--subtitles` make renditions, which only an HLS output (or one file of one) has;
    /// `--dash` a manifest, which only a whole presentation has. Returns OUTPUT with its MPD when asked.
    mutating func validate(command: String, output: OutputTarget) throws -> OutputTarget {
        writesDASH = output.dashManifest != nil || dash
        let isPresentation = output.kind != .file
        for (given, option) in [(ladder != nil, "--ladder"), (!subtitles.isEmpty, "--subtitles")] where given && !isPresentation {
            throw UsageError("\(option) applies to HLS and DASH outputs (.m3u8, .mpd) only, not \(output.path)", command: command)
        }
        if encrypt != nil || contentKeyFile != nil || licenceURL != nil || keyURI != nil {
            guard encrypt != nil, contentKeyFile != nil else {
                let given = contentKeyFile != nil ? "--content-key-file" : licenceURL != nil ? "--licence-url" : "--key-uri"
                throw UsageError(encrypt == nil ? "\(given) needs --encrypt cenc|cbcs|aes-128" : "--encrypt needs --content-key-file FILE (the key is never a command-line value)", command: command)
            }
            if encrypt == .aes128 {
                guard keyURI != nil, licenceURL == nil else {
                    throw UsageError(keyURI == nil ? "--encrypt aes-128 needs --key-uri URI (where players fetch the key)" : "--licence-url is for cenc and cbcs; aes-128 takes --key-uri", command: command)
                }
                guard !dash && output.dashManifest == nil else {
                    throw UsageError("--encrypt aes-128 encrypts HLS segments whole, which DASH players cannot decrypt; use cenc or cbcs with .mpd or --dash", command: command)
                }
            } else if keyURI != nil {
                throw UsageError("--key-uri is for --encrypt aes-128; cenc and cbcs name a licence (--licence-url)", command: command)
            }
            guard output.kind == .hlsPresentation else {
                let what = output.kind == .file ? "a \(output.fileType) file" : "one file of a presentation (--only-segment)"
                throw UsageError("--encrypt applies to whole presentations (.m3u8, .mpd) only, not \(what)", command: command)
            }
        }
        guard dash else { return output }
        guard output.kind == .hlsPresentation else {
            let what = output.kind == .file ? "a \(output.fileType) file" : "one file of a presentation (--only-segment)"
            throw UsageError("--dash applies to whole presentations (.m3u8) only, not \(what)", command: command)
        }
        return output.dashManifest == nil ? output.withDASHManifest() : output
    }

    /// The renditions asked for, nil for a single media playlist. A DASH presentation has its
    /// audio in a rendition of its own even without a ladder (the input's size, `LadderRequest.input`):
    /// DASH-IF's interoperability points give each media type its AdaptationSet, and FFmpeg's DASH
    /// reader cannot read a Representation with audio and video muxed.
    var ladderOptions: LadderOptions? { LadderOptions(ladder: ladder ?? (writesDASH || encrypt != nil ? .input : nil), subtitles: subtitles) }

    /// `--encrypt`'s protection, its key file read (a malformed one: `ContentKeyFileError`, 65); nil without it.
    func protection() throws -> SegmentProtection? {
        guard let encrypt, let contentKeyFile else { return nil }
        let keys = try ContentKeySet.read(fromFile: contentKeyFile)
        switch encrypt {
        case .cenc: return SegmentProtection(scheme: .cenc, keys: keys, licenceURL: licenceURL)
        case .cbcs: return SegmentProtection(scheme: .cbcs, keys: keys, licenceURL: licenceURL)
        case .aes128: return SegmentProtection(aes128: keys, keyURI: keyURI ?? "")
        }
    }

    private static func ladderRequest(_ text: String, option: String, command: String) throws -> LadderRequest {
        do {
            return try LadderRequest(parsing: text)
        } catch {
            throw UsageError("\(option) \(error.problem)", command: command)
        }
    }

    private static func sidecar(_ text: String, option: String, command: String) throws -> SidecarCaptions {
        do {
            return try SidecarCaptions(argument: text)
        } catch {
            throw UsageError("\(option) \(error.problem)", command: command)
        }
    }

    private static func segmentLength(_ text: String, option: String, command: String) throws -> PresentationTime {
        let seconds = try Parse.seconds(text, option: option, command: command)
        guard segmentRange.contains(seconds) else {
            throw UsageError("\(option) must be between \(Int(segmentRange.lowerBound)) and \(Int(segmentRange.upperBound)) seconds, got '\(text)'", command: command)
        }
        return HLSSettings.segmentLength(seconds: seconds)
    }
}

/// `--encrypt`'s methods: Common Encryption's schemes, or HLS AES-128.
enum EncryptionMethod: String, CaseIterable {
    case cenc, cbcs
    case aes128 = "aes-128"
}
