import Animation
import Foundation

/// A lecture whose config has a variant layer (`Lecture.Kind.variants`, issue 29,
/// docs/design/variant-marks.md) over the input's rendition.
///
/// - **The lecture** is one `VariantLecture`: the input indexed once and cut every period (one
///   period a segment), the variant layer bound alone, the code's biases derived from the marks'
///   key, and every shared variant render's keyed name (`VariantFileNames`).
/// - **A student** gets the codeword their variables give (the layer's `student` over them, not
///   the lecture's `{date}` and `{time}`), the same for every driver. Their playlist lists, per
///   segment, their own segment (where their own marks show: rendered without the variant layer)
///   or the shared render of their codeword's variant.
/// - **A segment's variants** are made together (`VariantLecture.sharedFiles(ofSegment:)`: one
///   decode, q encodes, padded to one size), a render group; segment 0's group also makes the
///   initialization segment, from variant 0's packets.
///
/// Resources (rendition `source`): `init.mp4` (shared), `K.m4s` (a student's own segment K),
/// `NAME.m4s` (a shared variant render: the name does not say which variant it is, and a student
/// can fetch only those their playlist lists).
final class VariantLayerLecture: PreparedLecture, @unchecked Sendable {
    static let rendition = "source"
    let definition: LectureDefinition
    let config: WatermarkConfig
    let code: VariantCode
    /// The lecture that decided the plan (lent for renders too).
    let lecture: VariantLecture
    /// Lectures over the same source for the group and initialization renders, one thread each.
    private let renderers: RowLending<VariantLecture>
    /// Makes another lecture over the same source (a compositor's fonts serve one thread).
    let makeVariantLecture: () throws -> VariantLecture
    let names: VariantRenderNames
    let images: ImageCache
    let notices: OnceNotices

    init(definition: LectureDefinition, config: WatermarkConfig, period: PresentationTime, notices: OnceNotices) throws {
        guard let key = config.pathKey else { preconditionFailure("Lecture checks the key first") }
        let source = try PresentationSource(input: definition.video, settings: definition.settings, segment: period,
                                            damagePolicy: definition.damagePolicy, warn: notices.say)
        let images = ImageCache()
        let jobValues = definition.jobValues
        let makeLecture = { try VariantLecture(source: source, config: config, jobValues: jobValues, images: images, warn: notices.say) }
        let lecture = try makeLecture()
        names = try VariantRenderNames(key: key, lecture: definition.name, revision: definition.revision, segments: lecture.periodCount,
                                       variants: lecture.variantCount)
        code = try VariantCode(config: config, input: definition.video, periods: lecture.periodCount)
        self.definition = definition
        self.config = config
        self.notices = notices
        self.images = images
        self.lecture = lecture
        renderers = RowLending(first: lecture, make: makeLecture)
        makeVariantLecture = makeLecture
    }

    func resource(rendition: String, file: String) -> Resource? {
        guard rendition == Self.rendition else { return nil }
        if let render = names.resource(rendition: rendition, file: file) { return render }
        guard let file = Resource.plainFile(named: file) else { return nil }
        switch file {
        case .initialization: return Resource(rendition: rendition, file: file)
        case .segment(let k) where k < lecture.periodCount: return Resource(rendition: rendition, file: file)
        default: return nil
        }
    }

    func fileName(of resource: Resource) -> String { names.fileName(of: resource) }

    func student(variables: [String: String]) throws -> any StudentCopy { try copy(variables: variables) }

    func copy(variables: [String: String]) throws -> VariantLayerCopy {
        // The code names the student by their variables; the marks also see the lecture's {date}
        // and {time} unless the variables give them.
        let codeword = try code.codeword(variables: variables, config: config)
        let values = definition.jobValues.merging(variables) { _, given in given }
        return try VariantLayerCopy(lecture: self, codeword: codeword) { [self] in
            try lecture.row(config: config, variables: values, images: images, codeword: codeword)
        }
    }

    /// Segment `k`'s shared files, made by one render: its variants, and with segment 0 the
    /// initialization segment (made from variant 0's packets of it).
    func group(ofSegment k: Int) -> RenderGroup {
        let variants = (0..<lecture.variantCount).map { Resource(rendition: Self.rendition, file: .variant(segment: k, variant: $0)) }
        let initialization = k == 0 ? [Resource(rendition: Self.rendition, file: .initialization)] : []
        return RenderGroup(name: "segment-\(k)", rendition: Self.rendition, members: variants + initialization)
    }

    /// The segment whose render group makes `resource` (a variant render, or the initialization segment: 0).
    func groupSegment(of resource: Resource) -> Int? {
        switch resource.file {
        case .initialization: 0
        case .variant(let k, _): k
        case .segment, .captions: nil
        }
    }

    /// Every segment's variant group (its q variants, and with segment 0 the initialization segment).
    func sharedWork() -> [SharedWork] {
        (0..<lecture.periodCount).map { .group(group(ofSegment: $0)) }
    }

    func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        guard let first = group.members.first, let k = groupSegment(of: first), self.group(ofSegment: k) == group else {
            preconditionFailure("render of \(group.name), which the lecture does not group")
        }
        let files = try renderers.with { try $0.sharedFiles(ofSegment: k) }
        return files.variants.map(\.bytes) + (files.initialization.map { [$0.bytes] } ?? [])
    }
}

/// One student's copy of a variant-layer lecture: their codeword, which segments are their own
/// (known at once), and rows to render those with, lent one thread at a time.
final class VariantLayerCopy: StudentCopy, @unchecked Sendable {
    let lecture: VariantLayerLecture
    let codeword: [Int]
    let segments: [RowSegment]
    private let rows: RowLending<PresentationRow>

    init(lecture: VariantLayerLecture, codeword: [Int], makeRow: @escaping () throws -> PresentationRow) throws {
        self.lecture = lecture
        self.codeword = codeword
        let row = try makeRow()
        segments = row.segments
        rows = RowLending(first: row, make: makeRow)
    }

    /// A row of this copy, lent for `body`.
    func withRow<T>(_ body: (PresentationRow) throws -> T) throws -> T { try rows.with(body) }

    private var rendition: String { VariantLayerLecture.rendition }
    var renditions: [String] { [rendition] }

    /// The resource of segment `k` in this copy, and whose it is.
    func listed(_ k: Int) -> (Resource, ResourceOwnership) {
        segments[k].isShared ? (Resource(rendition: rendition, file: .variant(segment: k, variant: codeword[k])), .shared)
                             : (Resource(rendition: rendition, file: .segment(k)), .student)
    }

    func playbackPlaylist(mediaPlaylistURI: (String) -> String, resourceURI: (Resource, ResourceOwnership) -> String) throws -> PlaybackPlaylist {
        PlaybackPlaylist(text: try playlist(uri: resourceURI), mediaPlaylistOf: rendition)
    }

    func mediaPlaylist(rendition: String, uri: (Resource, ResourceOwnership) -> String) -> String? {
        rendition == self.rendition ? try? playlist(uri: uri) : nil
    }

    private func playlist(uri: (Resource, ResourceOwnership) -> String) throws -> String {
        let initialization = uri(Resource(rendition: rendition, file: .initialization), .shared)
        return try withRow { row in
            row.playlist(initializationURI: initialization) { segment in
                let (resource, ownership) = listed(segment.index)
                return uri(resource, ownership)
            }
        }
    }

    func ownership(of resource: Resource) -> ResourceOwnership? {
        guard resource.rendition == rendition else { return nil }
        if resource.file == .initialization { return .shared }
        guard let k = resource.segment, segments.indices.contains(k) else { return nil }
        let (listedResource, ownership) = listed(k)
        return listedResource == resource ? ownership : nil
    }

    /// Every segment costs an encode on its first request (a variant group or an own segment):
    /// the next one in play order, whichever it is.
    func nextResourceAhead(in rendition: String, after resource: Resource?) -> (resource: Resource, ownership: ResourceOwnership)? {
        guard rendition == self.rendition else { return nil }
        let next = resource?.segment.map { $0 + 1 } ?? 0
        return segments.indices.contains(next) ? listed(next) : nil
    }

    func renderGroup(containing resource: Resource) -> RenderGroup? {
        guard resource.rendition == rendition, let k = lecture.groupSegment(of: resource) else { return nil }
        return lecture.group(ofSegment: k)
    }

    func render(_ group: RenderGroup) throws -> [[UInt8]] { try lecture.renderShared(group) }

    func render(_ resource: Resource) throws -> RenderedResource {
        guard ownership(of: resource) != nil else { preconditionFailure("render of \(resource), which the copy does not list") }
        if let group = renderGroup(containing: resource), let position = group.members.firstIndex(of: resource) {
            return RenderedResource(bytes: try render(group)[position])
        }
        guard case .segment(let k) = resource.file else { preconditionFailure("render of \(resource), which the copy does not list") }
        let made = try withRow { try $0.render(segment: k) }
        return RenderedResource(bytes: made.bytes, decodedPictures: made.decodedPictures, encodedPictures: made.encodedPictures,
                                videoSamples: made.videoSamples)
    }
}

/// The keyed names of a lecture's shared variant renders (`VariantFileNames`), and their reading
/// back: a name says nothing of its variant to whoever lacks the key.
struct VariantRenderNames: Sendable {
    /// Per segment, the name (without `.m4s`) of each variant.
    private let names: [[String]]
    /// Each name's segment and variant.
    private let variantOfName: [String: (segment: Int, variant: Int)]

    init(key: KeyedDerivation, lecture: String, revision: String, segments: Int, variants: Int) throws {
        let keyed = try VariantFileNames(key: key, lecture: lecture, revision: revision)
        names = try (0..<segments).map { k in try (0..<variants).map { v in try keyed.name(segment: k, variant: v) } }
        var variantOfName: [String: (segment: Int, variant: Int)] = [:]
        for (k, names) in names.enumerated() { for (v, name) in names.enumerated() { variantOfName[name] = (k, v) } }
        self.variantOfName = variantOfName
    }

    /// The variant render `file` names in `rendition` (every video rendition uses the same names), or nil.
    func resource(rendition: String, file: String) -> Resource? {
        guard file.hasSuffix(".m4s"), let found = variantOfName[String(file.dropLast(4))] else { return nil }
        return Resource(rendition: rendition, file: .variant(segment: found.segment, variant: found.variant))
    }

    func fileName(of resource: Resource) -> String {
        if case .variant(let k, let v) = resource.file { return names[k][v] + ".m4s" }
        guard let name = resource.plainFileName else { preconditionFailure("\(resource) has no name") }
        return name
    }
}
