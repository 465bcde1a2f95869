import Foundation
@testable import VideoWMServe
import VideoWM

/// A stand-in for VideoWM's presentation API behind the server's protocol (tests only): two
/// renditions of `segments` segments; a student's own segments are those whose index the
/// variable `marked` lists (default "1,3"); bytes say which rendition, segment and student
/// they are, so a test can tell a student's file from another's. Renders count themselves,
/// can be held at a gate until the test opens it, and fail for a file named in `failing`.
/// Beside the playlist, a variant lecture's files: `variant-5-V.m4s` (V 0…3), rendered together
/// as one group, each student listing the one their variable `variant` names.
final class TestIndexer: LecturePreparing, @unchecked Sendable {
    let segments: Int
    let gate: RenderGate?
    let failing: Set<String>
    private let lock = NSLock()
    private(set) var renders: [String] = []
    private(set) var indexCount = 0

    init(segments: Int = 6, gated: Bool = false, failing: Set<String> = []) {
        self.segments = segments
        gate = gated ? RenderGate() : nil
        self.failing = failing
    }

    func prepare(_ lecture: LectureDefinition) throws -> any PreparedLecture {
        lock.withLock { indexCount += 1 }
        return TestLecture(indexer: self, name: lecture.name)
    }

    func recordRender(_ what: String) { lock.withLock { renders.append(what) } }
    var renderList: [String] { lock.withLock { renders } }
}

/// Holds every render until the test opens it, so a test can act while renders are known to be
/// in progress instead of guessing how long one takes on a loaded machine.
final class RenderGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var open = false
    private var arrivals = 0

    /// Renders that have reached the gate (held or passed).
    var arrived: Int { condition.withLock { arrivals } }

    func pass() {
        condition.withLock {
            arrivals += 1
            while !open { condition.wait() }
        }
    }

    func openForever() {
        condition.withLock {
            open = true
            condition.broadcast()
        }
    }
}

struct TestLecture: PreparedLecture {
    let indexer: TestIndexer
    let name: String

    struct Unfillable: Error {}

    static let variantFiles = (0..<4).map { "variant-5-\($0).m4s" }

    func resource(rendition: String, file: String) -> Resource? {
        guard TestPresentation.renditions.contains(rendition) else { return nil }
        if let variant = Self.variantFiles.firstIndex(of: file) { return Resource(rendition: rendition, file: .variant(segment: 5, variant: variant)) }
        if file == "init.mp4" { return Resource(rendition: rendition, file: .initialization) }
        guard file.hasSuffix(".m4s"), let index = Int(file.dropLast(4)), (0..<indexer.segments).contains(index) else { return nil }
        return Resource(rendition: rendition, file: .segment(index))
    }

    func fileName(of resource: Resource) -> String {
        if case .variant(_, let variant) = resource.file { return Self.variantFiles[variant] }
        return resource.plainFileName ?? ""
    }

    /// Every file of both renditions (the initialization segments, every segment's shared copy)
    /// and the variant group, as a lecture whose renditions cost an encode would list them.
    func sharedWork() -> [SharedWork] {
        let files = TestPresentation.renditions.flatMap { rendition in
            [Resource(rendition: rendition, file: .initialization)] + (0..<indexer.segments).map { Resource(rendition: rendition, file: .segment($0)) }
        }
        let nobody = TestPresentation(lecture: self, variables: [:], marked: [])
        let group = nobody.renderGroup(containing: Resource(rendition: "v0", file: .variant(segment: 5, variant: 0)))
        return files.map { .file($0) } + (group.map { [.group($0)] } ?? [])
    }

    /// A shared file's bytes: what every student's copy renders for it.
    func renderShared(_ resource: Resource) throws -> [UInt8] {
        try TestPresentation(lecture: self, variables: [:], marked: []).render(resource).bytes
    }

    func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        try TestPresentation(lecture: self, variables: [:], marked: []).render(group)
    }

    func student(variables: [String: String]) throws -> any StudentCopy {
        if variables["email"] == nil { throw Unfillable() }
        let marked = Set((variables["marked"] ?? "1,3").split(separator: ",").compactMap { Int($0) })
        return TestPresentation(lecture: self, variables: variables, marked: marked)
    }
}

struct TestPresentation: StudentCopy {
    let lecture: TestLecture
    let variables: [String: String]
    let marked: Set<Int>
    static let renditions = ["v0", "v1"]
    var indexer: TestIndexer { lecture.indexer }
    var renditions: [String] { Self.renditions }

    func playbackPlaylist(mediaPlaylistURI uri: (String) -> String, resourceURI: (Resource, ResourceOwnership) -> String) -> PlaybackPlaylist {
        PlaybackPlaylist(text: multivariantPlaylist(uri: uri), mediaPlaylistOf: nil)
    }

    func multivariantPlaylist(uri: (String) -> String) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for (index, rendition) in Self.renditions.enumerated() {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\((index + 1) * 500_000),CODECS=\"avc1.64001f\"")
            lines.append(uri(rendition))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func mediaPlaylist(rendition: String, uri: (Resource, ResourceOwnership) -> String) -> String? {
        guard Self.renditions.contains(rendition) else { return nil }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
                     "#EXT-X-MAP:URI=\"\(uri(Resource(rendition: rendition, file: .initialization), .shared))\""]
        for index in 0..<indexer.segments {
            let resource = Resource(rendition: rendition, file: .segment(index))
            lines += ["#EXTINF:2.000000,", uri(resource, ownership(of: resource)!)]
        }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    func ownership(of resource: Resource) -> ResourceOwnership? {
        guard Self.renditions.contains(resource.rendition) else { return nil }
        switch resource.file {
        case .initialization: return .shared
        case .variant(_, let variant): return variables["variant"] == String(variant) ? .shared : nil
        case .segment(let index) where (0..<indexer.segments).contains(index): return marked.contains(index) ? .student : .shared
        default: return nil
        }
    }

    func nextResourceAhead(in rendition: String, after resource: Resource?) -> (resource: Resource, ownership: ResourceOwnership)? {
        let start = resource?.segment.map { $0 + 1 } ?? 0
        guard let next = marked.sorted().first(where: { $0 >= start && $0 < indexer.segments }) else { return nil }
        return (Resource(rendition: rendition, file: .segment(next)), .student)
    }

    func renderGroup(containing resource: Resource) -> RenderGroup? {
        guard case .variant = resource.file else { return nil }
        return RenderGroup(name: "segment-5", rendition: resource.rendition,
                           members: (0..<4).map { Resource(rendition: resource.rendition, file: .variant(segment: 5, variant: $0)) })
    }

    /// "v0/3.m4s", "v0/variant-5-2.m4s": what the bytes and the render list say.
    func name(_ resource: Resource) -> String { "\(resource.rendition)/\(lecture.fileName(of: resource))" }

    func render(_ group: RenderGroup) throws -> [[UInt8]] {
        indexer.gate?.pass()
        indexer.recordRender("\(group.rendition)/\(group.name) group")
        return group.members.map { Array("\(name($0)) shared\n".utf8) }
    }

    func render(_ resource: Resource) throws -> RenderedResource {
        indexer.gate?.pass()
        let whose = ownership(of: resource) == .student ? "student " + (variables["email"] ?? "") : "shared"
        indexer.recordRender("\(name(resource)) \(whose)")
        struct Failed: Error, CustomStringConvertible { var description: String { "the test renderer was told to fail" } }
        if indexer.failing.contains(lecture.fileName(of: resource)) { throw Failed() }
        // 64 KB, so ranges and sendfile have something to cut.
        let text = "\(name(resource)) \(whose)\n"
        return RenderedResource(bytes: Array(String(repeating: text, count: 65_536 / text.utf8.count + 1).utf8.prefix(65_536)))
    }
}
