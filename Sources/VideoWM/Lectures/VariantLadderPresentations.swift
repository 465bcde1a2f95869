import Foundation
import VideoWM

/// A lecture with a variant layer and a ladder or captions (lecture.json `ladder`, `subtitles`;
/// issue 29 over issue 25) behind the server's protocol: what `batch --ladder --key-file` does for
/// a CSV row, done for a token's variables.
///
/// - **A lecture** is one `LectureLadder` with the variant layer per revision: every rendition
///   encoded and cut every period, the code's biases derived from the marks' key (`VariantCode`,
///   batch's), and every shared variant file's keyed name (`VariantFileNames`: one name per
///   segment and variant, the same in every rendition, as the symbol is). Each rendition's
///   initialization segment is made at indexing (`CODECS`), from variant 0's first segment, as
///   batch makes it.
/// - **A student** is a `LadderRow` with the codeword batch gives the row with the same
///   variables: each video rendition's playlist lists their own segments (where their own marks
///   show, rendered on request without the variant layer) and elsewhere their symbol's shared
///   variant file; audio and captions are the lecture's.
/// - **A segment's variants** are made per rendition, together, on the first request for any of
///   them (`LectureLadder.sharedVariants`: the segment's GOPs decoded once, q encodes at the
///   rendition's size, padded to one size), a render group: byte for byte batch's files. Per
///   rendition rather than for every rendition at once: a player fetches one rendition at a time
///   and starts low, so a group of all renditions would make its first request wait for the top
///   rendition's q encodes and spend encodes on renditions nobody plays, where per rendition the
///   cost is one more decode of the segment's GOPs for each rendition actually played — a small
///   part of q encodes.
///
/// Resource names: `RENDITION/init.mp4`, `RENDITION/K.m4s` (a student's own video segment K, or
/// audio segment K), `RENDITION/NAME.m4s` (a shared variant file of a video rendition),
/// `RENDITION/K.vtt` (captions).
final class VariantLadderServing: IndexedLecture, @unchecked Sendable {
    let definition: LectureDefinition
    let config: WatermarkConfig
    let code: VariantCode
    let ladder: LectureLadder
    /// Per segment, the file name (without `.m4s`) of each variant, in every video rendition.
    let fileNames: [[String]]
    /// Each file name's segment and variant.
    let variantOfFile: [String: (segment: Int, variant: Int)]
    let images = ImageCache()
    let notices: OnceNotices

    init(definition: LectureDefinition, config: WatermarkConfig, settings: EncodeSettings, notices: OnceNotices) throws {
        let (key, period) = try VariantLectureServing.checked(definition, config: config, notices: notices)
        let layer = try VariantLayerSource.alone(config, jobValues: definition.jobValues, images: images, warn: notices.say)
        ladder = try LadderLecture.makeLadder(of: definition, settings: settings, segment: period, variantLayer: layer, warn: notices.say)
        // CODECS in every multivariant playlist reads the initialization segments: made here, once.
        for rendition in ladder.renditions where rendition.kind != .subtitles {
            _ = try ladder.initializationSegment(of: rendition.id)
        }
        let count = ladder.segments.count
        let names = try VariantFileNames(key: key, lecture: definition.name, revision: definition.revision)
        let q = ladder.variantCount ?? 0
        fileNames = try (0..<count).map { k in try (0..<q).map { v in try names.name(segment: k, variant: v) } }
        var variantOfFile: [String: (segment: Int, variant: Int)] = [:]
        for (k, names) in fileNames.enumerated() { for (v, name) in names.enumerated() { variantOfFile[name] = (k, v) } }
        self.variantOfFile = variantOfFile
        code = try VariantCode(config: config, input: definition.video, periods: count)
        self.definition = definition
        self.config = config
        self.notices = notices
    }

    func presentation(for variables: [String: String]) throws -> any StudentPresentation {
        try VariantLadderStudent(lecture: self, variables: variables)
    }

    func makeRow(values: [String: String], codeword: [Int]) throws -> LadderRow {
        try ladder.student(config: config, variables: values, images: images, codeword: codeword, warn: notices.say)
    }

    /// Segment `k`'s variants of video rendition `id`, made by one render.
    func group(ofSegment k: Int, rendition id: String) -> RenderGroup {
        RenderGroup(name: "segment-\(k)", rendition: id, members: fileNames[k].map { ResourceName(rendition: id, file: $0 + ".m4s") })
    }

    /// The segment and variant a video rendition's file names, when it is a variant file.
    func variant(named file: String) -> (segment: Int, variant: Int)? {
        guard file.hasSuffix(".m4s") else { return nil }
        return variantOfFile[String(file.dropLast(4))]
    }
}

/// One student's ladder of a variant lecture: their codeword, their segments of every rendition
/// (known at once), and rows to render their own with, lent one thread at a time.
final class VariantLadderStudent: StudentPresentation, @unchecked Sendable {
    let lecture: VariantLadderServing
    /// Per rendition id, its segments with whose each is and (shared video) which variant.
    let segments: [String: [LadderSegment]]
    private let rows: RowLending<LadderRow>

    init(lecture: VariantLadderServing, variables: [String: String]) throws {
        self.lecture = lecture
        // The code names the student by the token's variables, as batch by the row's; the marks also
        // see the lecture's {date} and {time} unless the token gives them.
        let codeword = try lecture.code.codeword(variables: variables, config: lecture.config)
        let values = lecture.definition.jobValues.merging(variables) { _, given in given }
        let row = try lecture.makeRow(values: values, codeword: codeword)
        var segments: [String: [LadderSegment]] = [:]
        for rendition in lecture.ladder.renditions { segments[rendition.id] = row.segments(of: rendition.id) }
        self.segments = segments
        rows = RowLending(first: row) { try lecture.makeRow(values: values, codeword: codeword) }
    }

    private func rendition(_ id: String) -> LadderRendition? { lecture.ladder.rendition(id) }

    /// The file segment `segment` of `rendition` is in this student's playlist, and whose it is.
    private func listed(_ segment: LadderSegment, of rendition: LadderRendition) -> (ResourceName, ResourceOwnership) {
        let k = segment.index
        switch rendition.kind {
        case .video where segment.isShared: return (ResourceName(rendition: rendition.id, file: lecture.fileNames[k][segment.variant] + ".m4s"), .shared)
        case .video: return (ResourceName(rendition: rendition.id, file: "\(k).m4s"), .student)
        case .audio: return (ResourceName(rendition: rendition.id, file: "\(k).m4s"), .shared)
        case .subtitles: return (ResourceName(rendition: rendition.id, file: "\(k).vtt"), .shared)
        }
    }

    func masterPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (ResourceName, ResourceOwnership) -> String) throws -> MasterPlaylist {
        // BANDWIDTH declared (LadderRow.declaredBitRates): known before the student's own segments exist.
        MasterPlaylist(text: try rows.with { row in try row.multivariantPlaylist(uri: { mediaPlaylistURI($0.id) }) }, mediaPlaylistOf: nil)
    }

    func mediaPlaylist(rendition id: String, uri: (ResourceName, ResourceOwnership) -> String) -> String? {
        guard let rendition = rendition(id) else { return nil }
        let initialization = rendition.kind == .subtitles ? nil : uri(ResourceName(rendition: id, file: "init.mp4"), .shared)
        return try? rows.with { row in
            row.mediaPlaylist(rendition: id, initializationURI: initialization) { segment in
                let (resource, ownership) = listed(segment, of: rendition)
                return uri(resource, ownership)
            }
        }
    }

    /// The segment a file of `rendition` names in this student's playlist and whose it is; nil
    /// when the playlist does not list it (another student's variant, the variant of a segment
    /// that is this student's own, a shared copy they were not given).
    private func segment(named file: String, of rendition: LadderRendition) -> (index: Int, ownership: ResourceOwnership)? {
        guard let list = segments[rendition.id] else { return nil }
        if rendition.kind == .video, let variant = lecture.variant(named: file) {
            let k = variant.segment
            return list[k].isShared && list[k].variant == variant.variant ? (k, .shared) : nil
        }
        let suffix = "." + LadderLecture.fileExtension(of: rendition.kind)
        guard file.hasSuffix(suffix) else { return nil }
        let digits = file.dropLast(suffix.count)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber), digits == "0" || !digits.hasPrefix("0"),
              digits.count <= 9, let k = Int(digits), list.indices.contains(k) else { return nil }
        if rendition.kind == .video { return list[k].isShared ? nil : (k, .student) }
        return (k, .shared)
    }

    func ownership(of resource: ResourceName) -> ResourceOwnership? {
        guard let rendition = rendition(resource.rendition) else { return nil }
        if resource.file == "init.mp4" { return rendition.kind == .subtitles ? nil : .shared }
        return segment(named: resource.file, of: rendition)?.ownership
    }

    func nextOwnResource(in id: String, after file: String?) -> ResourceName? {
        guard let rendition = rendition(id), rendition.kind == .video, let list = segments[id] else { return nil }
        let start = file.flatMap { segment(named: $0, of: rendition)?.index }.map { $0 + 1 } ?? 0
        guard let next = list.dropFirst(start).first(where: { !$0.isShared }) else { return nil }
        return ResourceName(rendition: id, file: "\(next.index).m4s")
    }

    /// Every video segment costs encodes on its first request (a variant group or an own
    /// segment): the next one in play order, whichever it is. Audio and captions cost none.
    func nextResourceAhead(in id: String, after file: String?) -> (resource: ResourceName, ownership: ResourceOwnership)? {
        guard let rendition = rendition(id), rendition.kind == .video, let list = segments[id] else { return nil }
        let next = file.flatMap { segment(named: $0, of: rendition)?.index }.map { $0 + 1 } ?? 0
        guard list.indices.contains(next) else { return nil }
        return listed(list[next], of: rendition)
    }

    func renderGroup(containing resource: ResourceName) -> RenderGroup? {
        guard rendition(resource.rendition)?.kind == .video, let variant = lecture.variant(named: resource.file) else { return nil }
        return lecture.group(ofSegment: variant.segment, rendition: resource.rendition)
    }

    func render(_ group: RenderGroup) throws -> [[UInt8]] { try lecture.renderShared(group) }

    func render(_ resource: ResourceName) throws -> [UInt8] {
        guard let rendition = rendition(resource.rendition), ownership(of: resource) != nil else {
            preconditionFailure("render of \(resource), which the presentation does not list")
        }
        if let group = renderGroup(containing: resource), let position = group.members.firstIndex(of: resource) {
            return try render(group)[position]
        }
        guard rendition.kind == .video, resource.file != "init.mp4" else { return try lecture.renderShared(resource) }
        guard let index = segment(named: resource.file, of: rendition)?.index else { preconditionFailure("render of \(resource), which has no segment index") }
        return try rows.with { try $0.render(rendition: rendition.id, segment: index) }
    }
}
