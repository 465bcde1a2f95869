import Foundation

/// Prepares lectures: indexing the input, deciding the kind of lecture, its plan, renditions and
/// variants, and every refusal, once per definition. `Lecture.Preparer` is the library's; a server
/// takes any (its tests give one that renders stand-in bytes).
public protocol LecturePreparing: Sendable {
    func prepare(_ definition: LectureDefinition) throws -> any PreparedLecture
}

/// A lecture prepared once, shared by every student: what their copies have in common, and the
/// one place that reads a resource's name.
public protocol PreparedLecture: Sendable {
    /// The resource a rendition's file name names ("init.mp4", "3.m4s", "3.vtt", a variant
    /// render's keyed name), nil when the lecture has no such file. The only parse of a name.
    func resource(rendition: String, file: String) -> Resource?
    /// The name of `resource` among its rendition's files.
    func fileName(of resource: Resource) -> String
    /// One student's copy: the config bound to their variables, and which resources of which
    /// renditions are their own. Throws when the variables cannot fill the config (a placeholder
    /// with no value). Renders nothing.
    func student(variables: [String: String]) throws -> any StudentCopy
    /// The files every student shares that cost an encode to make, in play order: what a server
    /// may make before anyone asks (`serve --warm`). By default none (a lecture of the input's own
    /// rendition shares the input's packets, which cost nothing to cut).
    func sharedWork() -> [SharedWork]
    /// A shared file's bytes, as every student's copy that lists it has them.
    func renderShared(_ resource: Resource) throws -> [UInt8]
    /// A shared render group's files, in its order.
    func renderShared(_ group: RenderGroup) throws -> [[UInt8]]
}

extension PreparedLecture {
    public func fileName(of resource: Resource) -> String {
        guard let name = resource.plainFileName else { preconditionFailure("\(resource): a variant render's name is its lecture's") }
        return name
    }

    public func sharedWork() -> [SharedWork] { [] }

    public func renderShared(_ resource: Resource) throws -> [UInt8] {
        preconditionFailure("render of \(resource), which the lecture does not list as shared work")
    }

    public func renderShared(_ group: RenderGroup) throws -> [[UInt8]] {
        preconditionFailure("render of \(group.name), which the lecture does not list as shared work")
    }
}

/// One student's copy of a lecture: its playlists, whose each resource is, and one function that
/// makes a resource's bytes — the same bytes whichever driver asks (a batch writing every copy, a
/// command line writing one file, a server answering a request).
public protocol StudentCopy: Sendable {
    /// The playlist of the playback URL: a multivariant playlist naming each rendition's media
    /// playlist through `mediaPlaylistURI`, or (one rendition alone) its media playlist with every
    /// resource named through `resourceURI`. Throws when a file it describes (an initialization
    /// segment, read for CODECS) cannot be made.
    func playbackPlaylist(mediaPlaylistURI: (_ rendition: String) -> String,
                          resourceURI: (Resource, ResourceOwnership) -> String) throws -> PlaybackPlaylist
    /// A rendition's media playlist, every resource named through `uri`; nil for a rendition the
    /// copy does not have.
    func mediaPlaylist(rendition: String, uri: (Resource, ResourceOwnership) -> String) -> String?
    /// Every rendition's id, in the multivariant playlist's order.
    var renditions: [String] { get }
    /// Whether this copy lists `resource`, and whose it is; nil when it does not (a shared segment
    /// where the student has a marked one is not theirs to fetch, nor another student's variant).
    func ownership(of resource: Resource) -> ResourceOwnership?
    /// What a student playing `resource` of `rendition` (the playlist: nil) will want next and is
    /// worth making ahead, and whose it is.
    func nextResourceAhead(in rendition: String, after resource: Resource?) -> (resource: Resource, ownership: ResourceOwnership)?
    /// The resource's bytes: a shared one as for every student, an own one marked with this
    /// student's variables; and what making them took. May take seconds.
    func render(_ resource: Resource) throws -> RenderedResource
    /// The resources one render makes together with `resource` (a variant layer's q renders of a
    /// segment); nil when it is rendered alone (`render`).
    func renderGroup(containing resource: Resource) -> RenderGroup?
    /// The bytes of every member of `group` (from `renderGroup(containing:)`), in its order.
    func render(_ group: RenderGroup) throws -> [[UInt8]]
}

extension StudentCopy {
    public func renderGroup(containing resource: Resource) -> RenderGroup? { nil }

    public func render(_ group: RenderGroup) throws -> [[UInt8]] {
        preconditionFailure("render of \(group.name), which the copy does not group")
    }

    /// Every resource the copy's playlists list, rendition by rendition in play order, each once.
    public func resources() -> [(resource: Resource, ownership: ResourceOwnership)] {
        var listed: [(Resource, ResourceOwnership)] = []
        var seen = Set<Resource>()
        for rendition in renditions {
            _ = mediaPlaylist(rendition: rendition) { resource, ownership in
                if seen.insert(resource).inserted { listed.append((resource, ownership)) }
                return ""
            }
        }
        return listed
    }
}
