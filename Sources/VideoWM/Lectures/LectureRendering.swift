/// What the server needs from the library to serve a lecture: the small protocol between the
/// HTTP origin and VideoWM's presentation and segment API, so the same function renders a
/// segment for `batch` and for a request (the server never renders anything itself).
///
/// Resources are named within a presentation by rendition and file (`("720p", "3.m4s")`,
/// `("720p", "init.mp4")`, `("subs-en", "0.vtt")`): names made of unreserved characters that
/// stay the same for every student, so the server can put them in URLs and cache paths. What
/// differs between students is whose a resource is: `shared` bytes are the same for all of
/// them, a student's own are rendered with their variables.
public struct ResourceName: Hashable, Sendable, CustomStringConvertible {
    public let rendition: String
    public let file: String

    public init(rendition: String, file: String) {
        self.rendition = rendition
        self.file = file
    }

    public var description: String { "\(rendition)/\(file)" }
}

public enum ResourceOwnership: Sendable, Equatable {
    /// The same bytes for every student (unmarked segments, initialization segments, captions).
    case shared
    /// Rendered with this student's variables (a segment in which their mark shows).
    case student
}

/// Turns a lecture's definition into something that serves every student: indexing (the
/// input's packets, the segment plan, the ladder) happens here, once per revision.
public protocol LectureIndexer: Sendable {
    func index(_ lecture: LectureDefinition) throws -> any IndexedLecture
}

/// A lecture indexed and ready.
public protocol IndexedLecture: Sendable {
    /// One student's presentation: the config bound to their variables, and which segments
    /// of which renditions their marks show in. Throws when the variables cannot fill the
    /// config (a placeholder with no value).
    func presentation(for variables: [String: String]) throws -> any StudentPresentation
    /// The files every student shares that cost an encode to make, in play order: what a
    /// server may make before anyone asks (`serve --warm`). By default none (a lecture served
    /// in the input's own rendition shares the input's packets, which cost nothing to cut).
    func sharedWork() -> [SharedWork]
    /// A shared file's bytes, as every student's presentation that lists it renders it.
    func renderShared(_ resource: ResourceName) throws -> [UInt8]
    /// A shared render group's files, in its order.
    func renderShared(_ group: RenderGroup) throws -> [[UInt8]]
}

/// One unit of a lecture's shared work: a file, or a render group made by one render.
public enum SharedWork: Sendable, Equatable {
    case file(ResourceName)
    case group(RenderGroup)
}

extension IndexedLecture {
    public func sharedWork() -> [SharedWork] { [] }

    public func renderShared(_ resource: ResourceName) throws -> [UInt8] {
        preconditionFailure("render of \(resource), which the lecture does not list as shared work")
    }

    public func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        preconditionFailure("render of \(group.name), which the lecture does not list as shared work")
    }
}

/// The playlist a student's playback URL answers with.
public struct MasterPlaylist: Sendable, Equatable {
    public let text: String
    /// When the presentation has one rendition and nothing beside it (no captions, no audio
    /// group), `text` is that rendition's media playlist itself (RFC 8216 lets a playback URL name
    /// one): its name here. nil: `text` is a multivariant playlist.
    public let mediaPlaylistOf: String?

    public init(text: String, mediaPlaylistOf: String?) {
        self.text = text
        self.mediaPlaylistOf = mediaPlaylistOf
    }
}

/// One student's view of a lecture.
public protocol StudentPresentation: Sendable {
    /// The playlist of the playback URL: a multivariant playlist naming each rendition's media
    /// playlist through `mediaPlaylistURI`, or (one rendition alone) its media playlist with
    /// every resource named through `resourceURI`. Throws when a file it describes (an
    /// initialization segment, read for CODECS) cannot be made.
    func masterPlaylist(mediaPlaylistURI: (_ rendition: String) -> String,
                        resourceURI: (ResourceName, ResourceOwnership) -> String) throws -> MasterPlaylist
    /// A rendition's media playlist, every resource named through `uri`; nil for a rendition
    /// the presentation does not have.
    func mediaPlaylist(rendition: String, uri: (ResourceName, ResourceOwnership) -> String) -> String?
    /// Whether this student's presentation lists the resource, and whose it is; nil when it
    /// does not (a shared segment where the student has a marked one is not theirs to fetch).
    func ownership(of resource: ResourceName) -> ResourceOwnership?
    /// The student's first own resource of `rendition` after the file `file` (from the start
    /// when nil), in play order: what a playing student will ask for next, rendered ahead.
    func nextOwnResource(in rendition: String, after file: String?) -> ResourceName?
    /// The resource's bytes: a shared one as for every student, an own one marked with this
    /// student's variables. Called on a render worker; may take seconds.
    func render(_ resource: ResourceName) throws -> [UInt8]
    /// The resources one render makes together with `resource` (a variant lecture's q variants
    /// of a segment: one decode, q encodes); nil when it is rendered alone (`render`).
    func renderGroup(containing resource: ResourceName) -> RenderGroup?
    /// The bytes of every member of `group` (from `renderGroup(containing:)`), in its order.
    /// Called on a render worker; may take seconds.
    func render(_ group: RenderGroup) throws -> [[UInt8]]
    /// What a student playing `file` of `rendition` (the playlist: nil) will want next and is
    /// worth rendering ahead, and whose it is: by default their next own resource.
    func nextResourceAhead(in rendition: String, after file: String?) -> (resource: ResourceName, ownership: ResourceOwnership)?
}

/// Files of a presentation made by one render, shared by every student who lists any of them
/// (a variant lecture's q variants of one segment). The server makes them under one key (one
/// job, one lock across processes) and caches every member, so the group is rendered once
/// whichever member is asked for first.
public struct RenderGroup: Sendable, Hashable {
    /// Names the group among the rendition's files (a safe path component that is no file's name).
    public let name: String
    public let rendition: String
    public let members: [ResourceName]

    public init(name: String, rendition: String, members: [ResourceName]) {
        precondition(members.allSatisfy { $0.rendition == rendition } && !members.isEmpty, "a group's members are files of its rendition")
        self.name = name
        self.rendition = rendition
        self.members = members
    }
}

extension StudentPresentation {
    public func renderGroup(containing resource: ResourceName) -> RenderGroup? { nil }

    public func render(_ group: RenderGroup) throws -> [[UInt8]] {
        preconditionFailure("render of \(group.name), which the presentation does not group")
    }

    public func nextResourceAhead(in rendition: String, after file: String?) -> (resource: ResourceName, ownership: ResourceOwnership)? {
        nextOwnResource(in: rendition, after: file).map { ($0, .student) }
    }
}
