import Foundation
import Overlay

/// Everything decided about one media-file output before anything is opened: how its video is
/// made, what becomes of every other stream, how the encoder is set up and what picture the
/// marks are laid out on, and the notices those decisions give. `MarkedOutput` only carries it
/// out, so each decision is made once, here.
struct OutputPlan {
    let target: OutputTarget

    /// How the video is made.
    enum Video {
        /// Every picture marked and encoded as `configuration` says; the marks are laid out on
        /// `scaled` when a size option scales the picture first, else on the stored picture.
        case encode(configuration: VideoEncoderConfiguration, scaled: (width: Int, height: Int)?)
        /// Smart rendering: the GOPs a mark touches re-encoded, every other packet copied.
        case splice(SpliceJob)
        /// The input's packets, copied (no layer applies and nothing asks for another encode).
        case copy
    }

    let video: Video
    /// Every other input stream with what becomes of it, in stream order.
    let routes: [(stream: Int, route: StreamRoute)]
    /// Streams left out with a notice ("stream 2 (subtitle, hdmv_pgs_subtitle)").
    let droppedStreams: [String]
    /// What the plan tells the user (an encode that loses alpha, audio re-encoded…), said when the output opens.
    let notices: [String]
    /// The container tags `--set-metadata` sets, in key order.
    let tags: [(key: String, value: String)]

    /// What happens to the video when no layer applies.
    enum UnmarkedVideo {
        /// Copy it packet for packet (a batch row whose `unless` removed every layer).
        case copy
        /// Re-encode it anyway (`transcode` with an empty config still changes codec or quality as asked).
        case reencode
    }

    /// The plan for writing `source`, marked by `compositor`, into the file `target`.
    /// - Parameter splice: smart rendering's spans for this output (`RenderPlanner`); nil renders every picture.
    static func make(source: VideoSource, target: OutputTarget, compositor: Compositor, settings: EncodeSettings,
                     unmarkedVideo: UnmarkedVideo, splice: SpliceJob?) throws -> OutputPlan {
        precondition(target.kind == .file, "HLS presentations are planned by PresentationSource")
        var notices: [String] = []
        let video: Video
        if compositor.isEmpty && unmarkedVideo == .copy && !settings.copyCannotHonour {
            video = .copy
        } else if let splice {
            video = .splice(splice)
        } else {
            let configuration: VideoEncoderConfiguration
            do {
                configuration = try VideoEncoderConfiguration(reencoding: source.video, settings: settings, target: target)
            } catch let error as RequestError {
                // A profile or level the picture does not fit: say which input's picture.
                throw RequestError(subject: error.subject, problem: "\(source.path): \(error.problem)")
            }
            // Scaled first, then marked: the marks are laid out and drawn at the output's size.
            let scaled = configuration.pixelFormat.planarLayout.flatMap {
                VideoEncoderConfiguration.scaledPicture(of: source.video, settings: settings, layout: $0)
            }
            notices += configuration.notices(reencoding: source.video, scaled: scaled != nil, input: source.path, output: "\(target.path) is")
            video = .encode(configuration: configuration, scaled: scaled)
        }

        var routes: [(stream: Int, route: StreamRoute)] = []
        var dropped: [String] = []
        let fileType = target.fileType
        for stream in source.input.streams where stream.index != source.videoIndex {
            let index = stream.index, codecName = stream.codec.name
            let route = StreamRoute.route(for: stream, into: target, audio: settings.audio)
            // An audio stream whose parameters the demuxer never found (a file cut short) could
            // be neither copied nor decoded: the input is at fault, not the output.
            if stream.mediaType == .audio && route != .drop(notice: false) && (stream.sampleRate <= 0 || stream.channelCount <= 0) {
                throw MediaError(file: source.path, detail: "audio stream \(index) (\(codecName)) has no sample rate or channels: the file is damaged or cut short")
            }
            switch route {
            case .reencodeAudio(let encoderName, true):
                notices.append("\(source.path): audio stream \(index) (\(codecName)) cannot be stored in a \(fileType) file; re-encoded with \(encoderName)")
            case .convertSubtitles(let encoderName):
                notices.append("\(source.path): subtitle stream \(index) (\(codecName)) cannot be stored in a \(fileType) file; converted to \(encoderName)")
            case .drop(true):
                let what = "stream \(index) (\(stream.mediaType == .unknown ? "data" : stream.mediaType.name), \(codecName))"
                dropped.append(what)
                notices.append("\(source.input.path): \(what) cannot be stored in a \(fileType) file; left out of \(target.path)")
            case .copy, .reencodeAudio, .drop:
                break
            }
            if route != .drop(notice: false) && route != .drop(notice: true) { routes.append((index, route)) }
        }
        return OutputPlan(target: target, video: video, routes: routes, droppedStreams: dropped, notices: notices,
                          tags: settings.tags.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }
}
