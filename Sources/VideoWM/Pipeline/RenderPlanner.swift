import Animation
import Foundation
import Overlay

/// Decides, per output, whether a job's video is smart-rendered (`--render`), and plans the spans.
///
/// The checks that need no reading come first (codec, container, pixel format, size, interlacing);
/// then one demux pass indexes the video's packets, shared by every output of the job; each
/// output's spans come from its compositor's visibility, evaluated at every picture's time.
/// Outputs whose layers show at the same times share one plan.
final class RenderPlanner {
    let mode: RenderMode
    private let source: VideoSource
    private let settings: EncodeSettings
    private var indexResult: Result<VideoPacketIndex, VideoPacketIndex.Refusal>?
    private var pictureTimes: [PresentationTime] = []
    private var plans: [(compositor: Compositor, result: Result<SmartPlan, SmartPlanRefusal>)] = []

    init(mode: RenderMode, source: VideoSource, settings: EncodeSettings) {
        self.mode = mode
        self.source = source
        self.settings = settings
    }

    /// The codec smart rendering splices for this input, nil when it does not.
    var codec: VideoCodec? {
        VideoCodec(source.stream.codec).flatMap { $0.isSpliceable ? $0 : nil }
    }

    /// How the output `target`, marked by `compositor`, is rendered: a splice job, or nil for a
    /// full render; with the outcome to report. Throws `RenderError` for `--render smart` where
    /// it is impossible.
    func decide(target: OutputTarget, compositor: Compositor) throws -> (job: SpliceJob?, outcome: RenderOutcome) {
        guard mode != .full else { return (nil, .full) }
        var obstacle = staticObstacle(target: target)
        if obstacle == nil {
            switch try index() {
            case .failure(let refusal): obstacle = RenderObstacle(reason: refusal.description, isNotable: true)
            case .success:
                if case .failure(let error) = parameterSetID() { obstacle = RenderObstacle(reason: error.description, isNotable: true) }
            }
        }
        // Marks that never hide leave nothing to copy: the full render is what they cost anyway.
        if obstacle?.isNotable == true && marksNeverHide(compositor) { obstacle?.isNotable = false }
        let decision = try RenderDecision.decide(mode, obstacle: obstacle, file: source.path) { plan(for: compositor) }
        guard let plan = decision.plan, let codec, case .success(let index) = try index(), case .success(let id) = parameterSetID() else {
            return (nil, RenderOutcome(isSmart: false, notice: decision.notice, reason: decision.reason))
        }
        let outcome = RenderOutcome(isSmart: true, notice: decision.notice, reason: decision.reason,
                                    reencodedSeconds: index.timeBase.seconds(plan.reencodedDuration),
                                    totalSeconds: index.timeBase.seconds(plan.totalDuration))
        return (SpliceJob(index: index, codec: codec, plan: plan, parameterSetID: id), outcome)
    }

    /// For H.264, the SPS/PPS id re-encoded spans take (one the input does not use); nil for
    /// other codecs. Fails when the input uses every id: then nothing can be spliced.
    private func parameterSetID() -> Result<Int?, ParameterSetError> {
        guard codec == .h264, case .success(let index)? = indexResult else { return .success(nil) }
        do {
            return .success(try H264ParameterSetIDs.free(avoiding: index.usedH264ParameterSetIDs))
        } catch {
            return .failure(error)
        }
    }

    /// Whether no layer of `compositor` ever hides, judged at the input's nominal frame times (at most
    /// 100 000 of them): only for whether a fallback is worth a notice, never for what is re-encoded.
    func marksNeverHide(_ compositor: Compositor) -> Bool {
        let rate = source.video.frameRate.map { Double($0.numerator) / Double($0.denominator) } ?? 0
        let seconds = source.input.durationSeconds ?? 0
        let step = max(1 / (rate > 0 ? rate : 30), seconds / 100_000)
        return stride(from: 0.0, through: max(seconds, 0), by: step).allSatisfy { compositor.drawsAnything(at: PresentationTime(seconds: $0)) }
    }

    /// Why smart rendering cannot apply to `target`, from what is known without reading the input.
    func staticObstacle(target: OutputTarget) -> RenderObstacle? {
        let codecName = source.stream.codec.name
        func input(_ reason: String) -> RenderObstacle { RenderObstacle(reason: reason, isNotable: true) }
        func asked(_ reason: String) -> RenderObstacle { RenderObstacle(reason: reason, isNotable: false) }
        guard let codec else { return input("the input's video is \(codecName); smart rendering splices H.264, HEVC and VP9") }
        if let wanted = settings.codec, wanted.rawValue != codec.rawValue {
            return asked("--codec \(wanted.rawValue) asks for another codec than the input's \(codecName)")
        }
        // Copied GOPs keep the input's size, keyframes, rate and profile: options that change them need every frame.
        if let reason = settings.whyCopiesCannotHonour { return asked(reason) }
        guard target.kind == .file, target.container.isSpliceable else {
            return asked("smart rendering writes MP4, MOV, MKV, WebM or MPEG-TS files, not \(target.fileType.lowercased())")
        }
        guard target.container.canHold(source.stream.codec) else {
            return asked("a \(target.fileType.lowercased()) file cannot hold \(codecName) video")
        }
        if source.stream.isInterlaced { return input("the video is interlaced") }
        let format = source.video.pixelFormat
        let encoderName = codec.encoderName
        let supported = (try? Encoder.supportedPixelFormats(ofEncoderNamed: encoderName)) ?? []
        guard let layout = format.planarLayout, supported.isEmpty || supported.contains(format) else {
            return input("\(encoderName) cannot encode the input's pixel format \(format)")
        }
        let size = layout.encodableSize(width: source.width, height: source.height)
        if size.width != source.width || size.height != source.height {
            return input("the picture's size \(source.width)×\(source.height) does not fit whole \(format) chroma samples")
        }
        return nil
    }

    /// The packet index, read once.
    func index() throws -> Result<VideoPacketIndex, VideoPacketIndex.Refusal> {
        if let indexResult { return indexResult }
        guard let codec else { preconditionFailure("index() for a codec smart rendering does not splice") }
        let result: Result<VideoPacketIndex, VideoPacketIndex.Refusal>
        do {
            result = .success(try VideoPacketIndex.read(path: source.path, streamIndex: source.videoIndex, codec: codec,
                                                           reorderDelay: source.stream.reorderDelay))
        } catch let refusal as VideoPacketIndex.Refusal {
            result = .failure(refusal)
        }
        if case .success(let index) = result {
            let tb = index.timeBase
            pictureTimes = index.packets.map {
                FrameClock.time(ofTimestamp: $0.pts, firstTimestamp: index.firstPresentationTimestamp,
                                timeBaseNumerator: Int64(tb.numerator), timeBaseDenominator: Int64(tb.denominator))
            }
        }
        indexResult = result
        return result
    }

    /// The spans for `compositor`'s marks, shared with an earlier output whose layers show at the same times.
    private func plan(for compositor: Compositor) -> Result<SmartPlan, SmartPlanRefusal> {
        if let known = plans.first(where: { $0.compositor.showsAtSameTimes(as: compositor) }) { return known.result }
        guard let codec, case .success(let index)? = indexResult else { preconditionFailure("planning before indexing") }
        let times = pictureTimes
        let result: Result<SmartPlan, SmartPlanRefusal>
        do {
            result = .success(try SmartPlan.make(packets: index.packets, codec: codec) { compositor.drawsAnything(at: times[$0]) })
        } catch {
            result = .failure(error)
        }
        plans.append((compositor, result))
        return result
    }

    /// What a decoder must do for these outputs' splices: decode every packet some span needs, keep
    /// every picture some span replaces; nil (decode everything) when some output renders in full.
    /// An output that copies the video needs nothing decoded.
    static func decodeSelection(index: VideoPacketIndex, for spliced: [SpliceJob], anyFullRender: Bool) -> VideoSource.DecodeSelection? {
        guard !anyFullRender else { return nil }
        var decodes = [Bool](repeating: false, count: index.packets.count)
        var keeps = Set<Int64>()
        for job in spliced {
            for span in job.plan.spans {
                for packet in span.decodedPackets { decodes[packet] = true }
                for packet in span.replacedPackets { keeps.insert(index.packets[packet].pts) }
            }
        }
        return VideoSource.DecodeSelection(decodes: decodes, keeps: keeps, firstPresentationTimestamp: index.firstPresentationTimestamp)
    }
}
