import Animation
import Foundation

/// A lecture with a variant layer and renditions (`Lecture.Kind.variantLadder`: issue 29 over
/// issue 25).
///
/// - **The lecture** is one `LectureLadder` with the variant layer: every rendition encoded and
///   cut every period, the code's biases derived from the marks' key (`VariantCode`), and every
///   shared variant render's keyed name (one name per segment and variant, the same in every
///   rendition, as the symbol is). Each rendition's initialization segment is made here (`CODECS`),
///   from variant 0's first segment.
/// - **A student** is a `LadderRow` with their codeword: each video rendition's playlist lists
///   their own segments (where their own marks show, rendered without the variant layer) and
///   elsewhere their symbol's shared variant render; audio and captions are the lecture's.
/// - **A segment's variants** are made per rendition, together (`LectureLadder.sharedVariants`:
///   the segment's GOPs decoded once, q encodes at the rendition's size, padded to one size), a
///   render group. Per rendition rather than for every rendition at once: a player fetches one
///   rendition at a time and starts low, so a group of all renditions would make its first request
///   wait for the top rendition's q encodes and spend encodes on renditions nobody plays.
///
/// Resources: `RENDITION/init.mp4`, `RENDITION/K.m4s` (a student's own video segment K, or audio
/// segment K), `RENDITION/NAME.m4s` (a video rendition's shared variant render), `RENDITION/K.vtt`.
final class VariantLadderLecture: PreparedLecture, @unchecked Sendable {
    let definition: LectureDefinition
    let config: WatermarkConfig
    let code: VariantCode
    let ladder: LectureLadder
    let names: VariantRenderNames
    let images = ImageCache()
    let notices: OnceNotices

    init(definition: LectureDefinition, config: WatermarkConfig, period: PresentationTime, notices: OnceNotices) throws {
        guard let key = config.pathKey else { preconditionFailure("Lecture checks the key first") }
        let layer = try VariantLayerSource.alone(config, jobValues: definition.jobValues, images: images, warn: notices.say)
        ladder = try LadderLecture.makeLadder(of: definition, segment: period, variantLayer: layer, warn: notices.say)
        // CODECS in every multivariant playlist reads the initialization segments: made here, once.
        for rendition in ladder.renditions where rendition.kind != .subtitles {
            _ = try ladder.initializationSegment(of: rendition.id)
        }
        let count = ladder.segments.count
        names = try VariantRenderNames(key: key, lecture: definition.name, revision: definition.revision, segments: count,
                                       variants: ladder.variantCount ?? 0)
        code = try VariantCode(config: config, input: definition.video, periods: count)
        self.definition = definition
        self.config = config
        self.notices = notices
    }

    func resource(rendition id: String, file: String) -> Resource? {
        if ladder.rendition(id)?.kind == .video, let render = names.resource(rendition: id, file: file) { return render }
        return LadderLecture.resource(in: ladder, rendition: id, file: file)
    }

    func fileName(of resource: Resource) -> String { names.fileName(of: resource) }

    func student(variables: [String: String]) throws -> any StudentCopy { try copy(variables: variables) }

    func copy(variables: [String: String]) throws -> LadderCopy {
        try LadderCopy(lecture: ladder, rows: { try self.makeRow(variables: variables) }, variants: self)
    }

    /// A row of the student with `variables`: their codeword (the code names the student by their
    /// variables), their marks seeing the lecture's `{date}` and `{time}` where they give none.
    func makeRow(variables: [String: String]) throws -> LadderRow {
        let codeword = try code.codeword(variables: variables, config: config)
        let values = definition.jobValues.merging(variables) { _, given in given }
        return try ladder.student(config: config, variables: values, images: images, codeword: codeword, warn: notices.say)
    }

    /// Segment `k`'s variants of video rendition `id`, made by one render.
    func group(ofSegment k: Int, rendition id: String) -> RenderGroup {
        RenderGroup(name: "segment-\(k)", rendition: id,
                    members: (0..<(ladder.variantCount ?? 0)).map { Resource(rendition: id, file: .variant(segment: k, variant: $0)) })
    }

    /// Every video and audio rendition's initialization segment (made at preparation already), then
    /// segment by segment each video rendition's variant group and each audio and caption file.
    func sharedWork() -> [SharedWork] {
        let initializations = ladder.renditions.filter { $0.kind != .subtitles }
            .map { SharedWork.file(Resource(rendition: $0.id, file: .initialization)) }
        let segments = ladder.segments.indices.flatMap { k in
            ladder.renditions.map { rendition -> SharedWork in
                switch rendition.kind {
                case .video: .group(group(ofSegment: k, rendition: rendition.id))
                case .audio: .file(Resource(rendition: rendition.id, file: .segment(k)))
                case .subtitles: .file(Resource(rendition: rendition.id, file: .captions(k)))
                }
            }
        }
        return initializations + segments
    }

    func renderShared(_ resource: Resource) throws -> [UInt8] {
        switch resource.file {
        case .initialization: try ladder.initializationSegment(of: resource.rendition)
        case .segment(let k), .captions(let k): try ladder.sharedSegment(of: resource.rendition, index: k)
        case .variant: preconditionFailure("\(resource) is made with its render group")
        }
    }

    func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        guard case .variant(let k, _)? = group.members.first?.file, self.group(ofSegment: k, rendition: group.rendition) == group else {
            preconditionFailure("render of \(group.name), which the lecture does not group")
        }
        return try ladder.sharedVariants(of: group.rendition, segment: k)
    }
}
