import Animation
import Foundation
import VideoWM

/// A lecture whose config has a variant layer (issue 29, docs/design/variant-marks.md) behind the
/// server's protocol: what `batch --key-file` does for a CSV row, done for a token's variables.
///
/// - **A lecture** is one `VariantLecture` per revision: the input indexed once and cut every
///   `seconds` (one period a segment), the variant layer bound alone, the code's biases derived
///   from the marks' key, and every shared variant file's name.
/// - **A student** gets the codeword `batch` gives the row with the same variables: the lecture
///   named as `batch` names it (the layer's `lecture`, else the video's file name), the layer's
///   `student` over the token's `vars` (not the lecture's `{date}` and `{time}`, which a batch row
///   does not have either), the same key. Their playlist lists, per segment, their own segment
///   (where their own marks show: rendered on request without the variant layer) or the
///   shared variant file of their codeword's symbol.
/// - **A segment's variants** are made together on the first request for any of them
///   (`VariantLecture.sharedFiles(ofSegment:)`: one decode, q encodes, padded to one size), a
///   render group, and all q cached: byte for byte `batch`'s shared files. Segment 0's group also
///   makes the initialization segment, from variant 0's packets, as batch makes it.
///
/// Resource names (rendition `source`): `init.mp4` (shared, as batch's), `K.m4s` (a student's
/// own segment K), `NAME.m4s` (a shared variant file, NAME from `VariantFileNames`: it does not
/// say which variant it is, and a student can fetch only those their playlist lists).
final class VariantLectureServing: IndexedLecture, @unchecked Sendable {
    static let rendition = "source"
    let definition: LectureDefinition
    let config: WatermarkConfig
    let code: VariantCode
    /// The lecture that decided the plan (lent for renders too).
    let lecture: VariantLecture
    /// Lectures over the same source for the group and initialization renders, one thread each.
    private let renderers: RowLending<VariantLecture>
    /// Per segment, the file name (without `.m4s`) of each variant.
    let fileNames: [[String]]
    /// Each file name's segment and variant.
    let variantOfFile: [String: (segment: Int, variant: Int)]
    let images: ImageCache
    let notices: OnceNotices

    /// What every lecture with a variant layer needs, checked as batch checks it (a ladder's too,
    /// `VariantLadderServing`): the marks' key (without it nobody may compute a student's
    /// variants) and a segment length equal to the layer's period; says once when the code names
    /// the lecture by the video's file name. Returns the key and the period.
    static func checked(_ definition: LectureDefinition, config: WatermarkConfig, notices: OnceNotices) throws -> (key: KeyedDerivation, period: PresentationTime) {
        guard let layer = config.variantLayer, let variants = layer.variants else { preconditionFailure("a variant lecture needs a variant layer") }
        guard let key = config.pathKey else { throw VariantCode.keyNeeded(config: config) }
        let period = PresentationTime(seconds: variants.periodSeconds)
        if let segment = definition.segmentSeconds, abs(segment - period.seconds) > 1e-6 {
            throw PresentationUnavailable(reason: "lecture.json's segment \(segment) differs from the variant layer's period (\(config.file): \(layer.path).variants.seconds = \(variants.periodSeconds)): with a variant layer a segment is a period; leave segment out or give the same")
        }
        if variants.lecture == nil {
            let file = (definition.video as NSString).lastPathComponent
            notices.say("the variant layer (\(config.file): \(layer.path).variants) names no lecture: its code is derived for the video's file name '\(file)', as batch and trace derive it for a file of that name (set variants.lecture when lectures share a file name)")
        }
        return (key, period)
    }

    init(definition: LectureDefinition, config: WatermarkConfig, settings: EncodeSettings, notices: OnceNotices) throws {
        precondition(definition.ladder == nil && definition.subtitles.isEmpty, "a variant lecture with renditions is a VariantLadderServing")
        let (key, period) = try Self.checked(definition, config: config, notices: notices)
        let source = try PresentationSource(input: definition.video, settings: settings.forVariantLecture, segment: period, warn: notices.say)
        let images = ImageCache()
        let jobValues = definition.jobValues
        let makeLecture = { try VariantLecture(source: source, config: config, jobValues: jobValues, images: images, warn: notices.say) }
        let lecture = try makeLecture()
        let names = try VariantFileNames(key: key, lecture: definition.name, revision: definition.revision)
        let fileNames = try (0..<lecture.periodCount).map { k in try (0..<lecture.variantCount).map { v in try names.name(segment: k, variant: v) } }
        var variantOfFile: [String: (segment: Int, variant: Int)] = [:]
        for (k, names) in fileNames.enumerated() { for (v, name) in names.enumerated() { variantOfFile[name] = (k, v) } }
        code = try VariantCode(config: config, input: definition.video, periods: lecture.periodCount)
        self.definition = definition
        self.config = config
        self.notices = notices
        self.images = images
        self.lecture = lecture
        renderers = RowLending(first: lecture, make: makeLecture)
        self.fileNames = fileNames
        self.variantOfFile = variantOfFile
    }

    func presentation(for variables: [String: String]) throws -> any StudentPresentation {
        try VariantStudent(lecture: self, variables: variables)
    }

    /// A row of the student with `values` (their variables and the lecture's `{date}` and `{time}`).
    func makeRow(values: [String: String], codeword: [Int]) throws -> PresentationRow {
        try lecture.row(config: config, variables: values, images: images, codeword: codeword)
    }

    /// The files segment `k`'s render group makes (`group(ofSegment:)`'s members, in order): its q
    /// variants padded to one size and, with segment 0, the initialization segment.
    func sharedFiles(ofSegment k: Int) throws -> [[UInt8]] {
        let files = try renderers.with { try $0.sharedFiles(ofSegment: k) }
        return files.variants.map(\.bytes) + (files.initialization.map { [$0.bytes] } ?? [])
    }

    /// Segment `k`'s shared files, made by one render: its variants, and with segment 0 the
    /// initialization segment (made from variant 0's packets of it, as batch makes it).
    func group(ofSegment k: Int) -> RenderGroup {
        let variants = fileNames[k].map { ResourceName(rendition: Self.rendition, file: $0 + ".m4s") }
        let initialization = k == 0 ? [ResourceName(rendition: Self.rendition, file: "init.mp4")] : []
        return RenderGroup(name: "segment-\(k)", rendition: Self.rendition, members: variants + initialization)
    }

    /// The segment whose render group makes `file` (a variant file, or the initialization segment's: 0).
    func groupSegment(of file: String) -> Int? {
        if file == "init.mp4" { return 0 }
        guard file.hasSuffix(".m4s") else { return nil }
        return variantOfFile[String(file.dropLast(4))]?.segment
    }
}

/// One student's presentation of a variant lecture: their codeword, which segments are their
/// own (known at once), and rows to render those with, lent one thread at a time.
final class VariantStudent: StudentPresentation, @unchecked Sendable {
    let lecture: VariantLectureServing
    let codeword: [Int]
    let segments: [RowSegment]
    private let rows: RowLending<PresentationRow>

    init(lecture: VariantLectureServing, variables: [String: String]) throws {
        self.lecture = lecture
        // The code names the student by the token's variables, as batch by the row's; the marks also
        // see the lecture's {date} and {time} unless the token gives them (a batch row's are the job's).
        codeword = try lecture.code.codeword(variables: variables, config: lecture.config)
        let values = lecture.definition.jobValues.merging(variables) { _, given in given }
        let row = try lecture.makeRow(values: values, codeword: codeword)
        segments = row.segments
        rows = RowLending(first: row) { [codeword] in try lecture.makeRow(values: values, codeword: codeword) }
    }

    private var rendition: String { VariantLectureServing.rendition }

    /// The file of segment `k` in this student's playlist, and whose it is.
    private func listed(_ k: Int) -> (ResourceName, ResourceOwnership) {
        segments[k].isShared ? (ResourceName(rendition: rendition, file: lecture.fileNames[k][codeword[k]] + ".m4s"), .shared)
                             : (ResourceName(rendition: rendition, file: "\(k).m4s"), .student)
    }

    func masterPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (ResourceName, ResourceOwnership) -> String) throws -> MasterPlaylist {
        MasterPlaylist(text: try playlist(uri: resourceURI), mediaPlaylistOf: rendition)
    }

    func mediaPlaylist(rendition: String, uri: (ResourceName, ResourceOwnership) -> String) -> String? {
        rendition == self.rendition ? try? playlist(uri: uri) : nil
    }

    private func playlist(uri: (ResourceName, ResourceOwnership) -> String) throws -> String {
        let initialization = uri(ResourceName(rendition: rendition, file: "init.mp4"), .shared)
        // `playlist` reads only what the row decided when it was made; no render touches it.
        return try rows.with { row in
            row.playlist(initializationURI: initialization) { segment in
                let (resource, ownership) = listed(segment.index)
                return uri(resource, ownership)
            }
        }
    }

    /// The segment a file names and whose it is in this student's playlist, nil when it is not there.
    private func segment(named file: String) -> (index: Int, ownership: ResourceOwnership)? {
        guard file.hasSuffix(".m4s") else { return nil }
        let stem = String(file.dropLast(4))
        if let variant = lecture.variantOfFile[stem] {
            // Another student's variant, or the variant of a segment that is this student's own: not theirs.
            let k = variant.segment
            return segments[k].isShared && codeword[k] == variant.variant ? (k, .shared) : nil
        }
        guard !stem.isEmpty, stem.allSatisfy(\.isASCII), stem.allSatisfy(\.isNumber), stem == "0" || !stem.hasPrefix("0"),
              stem.count <= 9, let k = Int(stem), segments.indices.contains(k), !segments[k].isShared else { return nil }
        return (k, .student)
    }

    func ownership(of resource: ResourceName) -> ResourceOwnership? {
        guard resource.rendition == rendition else { return nil }
        if resource.file == "init.mp4" { return .shared }
        return segment(named: resource.file)?.ownership
    }

    func nextOwnResource(in rendition: String, after file: String?) -> ResourceName? {
        guard rendition == self.rendition else { return nil }
        let start = file.flatMap { segment(named: $0)?.index }.map { $0 + 1 } ?? 0
        guard let next = segments.dropFirst(start).first(where: { !$0.isShared }) else { return nil }
        return ResourceName(rendition: rendition, file: "\(next.index).m4s")
    }

    /// Every segment costs an encode on its first request (a variant group or an own segment):
    /// the next one in play order, whichever it is.
    func nextResourceAhead(in rendition: String, after file: String?) -> (resource: ResourceName, ownership: ResourceOwnership)? {
        guard rendition == self.rendition else { return nil }
        let next = file.flatMap { segment(named: $0)?.index }.map { $0 + 1 } ?? 0
        guard segments.indices.contains(next) else { return nil }
        let (resource, ownership) = listed(next)
        return (resource, ownership)
    }

    func renderGroup(containing resource: ResourceName) -> RenderGroup? {
        guard resource.rendition == rendition, let k = lecture.groupSegment(of: resource.file) else { return nil }
        return lecture.group(ofSegment: k)
    }

    func render(_ group: RenderGroup) throws -> [[UInt8]] { try lecture.renderShared(group) }

    func render(_ resource: ResourceName) throws -> [UInt8] {
        guard resource.rendition == rendition else { preconditionFailure("render of \(resource), which the presentation does not list") }
        if let group = renderGroup(containing: resource), let position = group.members.firstIndex(of: resource) {
            return try render(group)[position]
        }
        guard let index = segment(named: resource.file)?.index else { preconditionFailure("render of \(resource), which the presentation does not list") }
        return try rows.with { try $0.render(segment: index).bytes }
    }
}
