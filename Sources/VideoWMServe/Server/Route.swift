import VideoWM
/// The URL scheme, parsed once from a request's path (never percent-decoded: a component may
/// hold only unreserved characters, and may not start with a dot, so `..`, `%2F`, `%2e%2e`
/// and empty components all fail here and answer 404).
///
/// ```
/// /healthz, /metrics                              operations
/// /v1/authorize                                   for a proxy's auth_request: the original URI in X-Original-URI
/// /v1/NAME/master.m3u8?token=JWT                  the student's multivariant playlist (the URL a platform hands out)
/// /v1/NAME/prepare?token=JWT                      GET or POST, 204: start making the student's first files (a lecture page opening)
/// /v1/NAME/REV/media/RENDITION.m3u8?token=JWT     the student's media playlist of one rendition
/// /v1/NAME/REV/key?token=JWT                      an encrypted lecture's AES-128 key (16 bytes; lecture.json's encryption)
/// /v1/NAME/REV/shared/RENDITION/FILE?token=JWT    a file every student shares (same URL for all: one cache entry)
/// /v1/NAME/REV/own/STUDENT/RENDITION/FILE?token=JWT  a file marked for this student (STUDENT: from the token's variables)
/// /player/FILE                                    the static player page and its scripts (--player DIR)
/// ```
/// REV is the lecture's revision: a URL names bytes that never change, so caches may keep them.
enum Route: Equatable {
    case health
    case metrics
    case authorize
    case player(file: String)
    case lecture(name: String, LectureRoute)
}

enum LectureRoute: Equatable {
    case master
    /// A platform's notice that a student is about to play: their first files are started, nothing is sent.
    case prepare
    case mediaPlaylist(revision: String, rendition: String)
    /// The key of an encrypted lecture's segments, for a token of the lecture (never cached).
    case key(revision: String)
    case shared(revision: String, ResourcePath)
    case own(revision: String, student: String, ResourcePath)

    var revision: String? {
        switch self {
        case .master, .prepare: nil
        case .mediaPlaylist(let revision, _), .key(let revision), .shared(let revision, _), .own(let revision, _, _): revision
        }
    }
}

extension Route {
    init?(path: String) {
        guard path.hasPrefix("/") else { return nil }
        let parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.allSatisfy(Route.isSafeComponent) else { return nil }
        switch parts.count {
        case 1 where parts[0] == "healthz": self = .health
        case 1 where parts[0] == "metrics": self = .metrics
        case 2 where parts[0] == "v1" && parts[1] == "authorize": self = .authorize
        case 2 where parts[0] == "player": self = .player(file: parts[1])
        case 3 where parts[0] == "v1" && parts[2] == "master.m3u8":
            self = .lecture(name: parts[1], .master)
        case 3 where parts[0] == "v1" && parts[2] == "prepare":
            self = .lecture(name: parts[1], .prepare)
        case 4 where parts[0] == "v1" && parts[3] == "key":
            self = .lecture(name: parts[1], .key(revision: parts[2]))
        case 5 where parts[0] == "v1" && parts[3] == "media" && parts[4].hasSuffix(".m3u8") && parts[4].count > 5:
            self = .lecture(name: parts[1], .mediaPlaylist(revision: parts[2], rendition: String(parts[4].dropLast(5))))
        case 6 where parts[0] == "v1" && parts[3] == "shared":
            self = .lecture(name: parts[1], .shared(revision: parts[2], ResourcePath(rendition: parts[4], file: parts[5])))
        case 7 where parts[0] == "v1" && parts[3] == "own":
            self = .lecture(name: parts[1], .own(revision: parts[2], student: parts[4], ResourcePath(rendition: parts[5], file: parts[6])))
        default: return nil
        }
    }

    /// Letters, digits, `-`, `_` and `.` (RFC 3986's unreserved set less `~`), not first a dot.
    static func isSafeComponent(_ text: String) -> Bool {
        guard let first = text.utf8.first, first != UInt8(ascii: ".") else { return false }
        return text.utf8.allSatisfy { byte in
            (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
        }
    }
}

/// Where a resource sits in URLs and the cache: its rendition and its name there. Read from a URL
/// once, then turned into a typed `Resource` by the lecture (`PreparedLecture.resource`); made from
/// a typed resource by the lecture's naming, never by hand.
struct ResourcePath: Equatable, Sendable {
    let rendition: String
    let file: String

    init(rendition: String, file: String) {
        self.rendition = rendition
        self.file = file
    }

    init(_ resource: Resource, in lecture: any PreparedLecture) {
        self.init(rendition: resource.rendition, file: lecture.fileName(of: resource))
    }
}

extension LectureRoute {
    /// The route of `group` beside this file's (the same lecture, revision and owner): where the
    /// group's lock and cache key live.
    func naming(_ group: RenderGroup) -> LectureRoute {
        let place = ResourcePath(rendition: group.rendition, file: group.name)
        switch self {
        case .master, .prepare, .mediaPlaylist, .key: preconditionFailure("a render group belongs to files")
        case .shared(let revision, _): return .shared(revision: revision, place)
        case .own(let revision, let student, _): return .own(revision: revision, student: student, place)
        }
    }

    /// The URL path of a route (the inverse of parsing), for the playlists the server writes.
    func path(lecture: String) -> String {
        switch self {
        case .master: "/v1/\(lecture)/master.m3u8"
        case .prepare: "/v1/\(lecture)/prepare"
        case .mediaPlaylist(let revision, let rendition): "/v1/\(lecture)/\(revision)/media/\(rendition).m3u8"
        case .key(let revision): "/v1/\(lecture)/\(revision)/key"
        case .shared(let revision, let resource): "/v1/\(lecture)/\(revision)/shared/\(resource.rendition)/\(resource.file)"
        case .own(let revision, let student, let resource): "/v1/\(lecture)/\(revision)/own/\(student)/\(resource.rendition)/\(resource.file)"
        }
    }
}
