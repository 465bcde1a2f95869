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
final class TestIndexer: LectureIndexer, @unchecked Sendable {
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

    func index(_ lecture: LectureDefinition) throws -> any IndexedLecture {
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

struct TestLecture: IndexedLecture {
    let indexer: TestIndexer
    let name: String

    struct Unfillable: Error {}

    /// Every file of both renditions (the initialization segments, every segment's shared copy)
    /// and the variant group, as a lecture whose renditions cost an encode would list them.
    func sharedWork() -> [SharedWork] {
        let files = TestPresentation.renditions.flatMap { rendition in
            [ResourceName(rendition: rendition, file: "init.mp4")] + (0..<indexer.segments).map { ResourceName(rendition: rendition, file: "\($0).m4s") }
        }
        let nobody = TestPresentation(indexer: indexer, variables: [:], marked: [])
        let group = nobody.renderGroup(containing: ResourceName(rendition: "v0", file: TestPresentation.variantFiles[0]))
        return files.map { .file($0) } + (group.map { [.group($0)] } ?? [])
    }

    /// A shared file's bytes: what every student's presentation renders for it.
    func renderShared(_ resource: ResourceName) throws -> [UInt8] {
        try TestPresentation(indexer: indexer, variables: [:], marked: []).render(resource)
    }

    func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        try TestPresentation(indexer: indexer, variables: [:], marked: []).render(group)
    }

    func presentation(for variables: [String: String]) throws -> any StudentPresentation {
        if variables["email"] == nil { throw Unfillable() }
        let marked = Set((variables["marked"] ?? "1,3").split(separator: ",").compactMap { Int($0) })
        return TestPresentation(indexer: indexer, variables: variables, marked: marked)
    }
}

struct TestPresentation: StudentPresentation {
    let indexer: TestIndexer
    let variables: [String: String]
    let marked: Set<Int>
    static let renditions = ["v0", "v1"]

    func masterPlaylist(mediaPlaylistURI uri: (String) -> String, resourceURI: (ResourceName, ResourceOwnership) -> String) -> MasterPlaylist {
        MasterPlaylist(text: multivariantPlaylist(uri: uri), mediaPlaylistOf: nil)
    }

    func multivariantPlaylist(uri: (String) -> String) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for (index, rendition) in Self.renditions.enumerated() {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\((index + 1) * 500_000),CODECS=\"avc1.64001f\"")
            lines.append(uri(rendition))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    func mediaPlaylist(rendition: String, uri: (ResourceName, ResourceOwnership) -> String) -> String? {
        guard Self.renditions.contains(rendition) else { return nil }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD",
                     "#EXT-X-MAP:URI=\"\(uri(ResourceName(rendition: rendition, file: "init.mp4"), .shared))\""]
        for index in 0..<indexer.segments {
            let resource = ResourceName(rendition: rendition, file: "\(index).m4s")
            lines += ["#EXTINF:2.000000,", uri(resource, ownership(of: resource)!)]
        }
        return (lines + ["#EXT-X-ENDLIST"]).joined(separator: "\n") + "\n"
    }

    func index(of resource: ResourceName) -> Int? {
        guard Self.renditions.contains(resource.rendition), resource.file.hasSuffix(".m4s"),
              let index = Int(resource.file.dropLast(4)), (0..<indexer.segments).contains(index) else { return nil }
        return index
    }

    static let variantFiles = (0..<4).map { "variant-5-\($0).m4s" }

    func ownership(of resource: ResourceName) -> ResourceOwnership? {
        if resource.file == "init.mp4" && Self.renditions.contains(resource.rendition) { return .shared }
        if let variant = Self.variantFiles.firstIndex(of: resource.file), Self.renditions.contains(resource.rendition) {
            return variables["variant"] == String(variant) ? .shared : nil
        }
        guard let index = index(of: resource) else { return nil }
        return marked.contains(index) ? .student : .shared
    }

    func nextOwnResource(in rendition: String, after file: String?) -> ResourceName? {
        let start = file.flatMap { index(of: ResourceName(rendition: rendition, file: $0)) }.map { $0 + 1 } ?? 0
        guard let next = marked.sorted().first(where: { $0 >= start && $0 < indexer.segments }) else { return nil }
        return ResourceName(rendition: rendition, file: "\(next).m4s")
    }

    func renderGroup(containing resource: ResourceName) -> RenderGroup? {
        guard Self.variantFiles.contains(resource.file) else { return nil }
        return RenderGroup(name: "segment-5", rendition: resource.rendition,
                           members: Self.variantFiles.map { ResourceName(rendition: resource.rendition, file: $0) })
    }

    func render(_ group: RenderGroup) throws -> [[UInt8]] {
        indexer.gate?.pass()
        indexer.recordRender("\(group.rendition)/\(group.name) group")
        return group.members.map { Array("\($0) shared\n".utf8) }
    }

    func render(_ resource: ResourceName) throws -> [UInt8] {
        indexer.gate?.pass()
        let whose = ownership(of: resource) == .student ? "student " + (variables["email"] ?? "") : "shared"
        indexer.recordRender("\(resource) \(whose)")
        struct Failed: Error, CustomStringConvertible { var description: String { "the test renderer was told to fail" } }
        if indexer.failing.contains(resource.file) { throw Failed() }
        // 64 KB, so ranges and sendfile have something to cut.
        let text = "\(resource) \(whose)\n"
        return Array(String(repeating: text, count: 65_536 / text.utf8.count + 1).utf8.prefix(65_536))
    }
}
