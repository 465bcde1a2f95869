/// One file of a student's copy of a lecture, as a typed value: which rendition it belongs to and
/// what it is. Names are derived from it, never parsed back but at the one edge that reads a name
/// (`PreparedLecture.resource(rendition:file:)`): a URL, a command line's `--only-segment`.
///
/// Names are made of unreserved characters and stay the same for every student:
/// `init.mp4`, `K.m4s` (K from 0), `K.vtt`, and for a variant layer's shared renders an opaque
/// keyed name (`VariantFileNames`), which says nothing of the variant it holds.
public struct Resource: Hashable, Sendable, CustomStringConvertible {
    public enum File: Hashable, Sendable {
        /// The rendition's initialization segment (`ftyp` + `moov`).
        case initialization
        /// Media segment K of a video or audio rendition: a student's own, or one every student shares.
        case segment(Int)
        /// Segment K's shared render of variant V of a variant layer (docs/design/variant-marks.md §8).
        case variant(segment: Int, variant: Int)
        /// WebVTT segment K of a caption rendition.
        case captions(Int)
    }

    public let rendition: String
    public let file: File

    public init(rendition: String, file: File) {
        self.rendition = rendition
        self.file = file
    }

    /// The segment the resource belongs to (nil for an initialization segment).
    public var segment: Int? {
        switch file {
        case .initialization: nil
        case .segment(let k), .captions(let k), .variant(let k, _): k
        }
    }

    /// The name of an initialization, media or caption segment (`init.mp4`, `3.m4s`, `3.vtt`);
    /// nil for a variant render, whose keyed name only its lecture knows (`PreparedLecture.fileName`).
    public var plainFileName: String? {
        switch file {
        case .initialization: "init.mp4"
        case .segment(let k): "\(k).m4s"
        case .captions(let k): "\(k).vtt"
        case .variant: nil
        }
    }

    public var description: String {
        switch file {
        case .variant(let k, let v): "\(rendition)/segment \(k), variant \(v)"
        default: "\(rendition)/\(plainFileName ?? "")"
        }
    }

    /// The file a plain name names ("init.mp4", "12.m4s", "3.vtt": decimal, no leading zero,
    /// at most nine digits), or nil. Variant names are the lecture's to read.
    static func plainFile(named name: String) -> File? {
        if name == "init.mp4" { return .initialization }
        for (suffix, make) in [(".m4s", File.segment), (".vtt", File.captions)] where name.hasSuffix(suffix) {
            let digits = name.dropLast(suffix.count)
            guard !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  digits == "0" || !digits.hasPrefix("0"), let k = Int(digits) else { return nil }
            return make(k)
        }
        return nil
    }
}

/// Whose a resource is.
public enum ResourceOwnership: Sendable, Equatable {
    /// The same bytes for every student (unmarked segments, initialization segments, captions,
    /// a variant layer's shared renders).
    case shared
    /// Rendered with this student's variables (a segment in which their mark shows).
    case student
}

/// Files of a lecture made by one render, shared by every student who lists any of them (a
/// variant layer's q renders of one segment: one decode, q encodes). A server makes them under
/// one key (one job, one lock across processes) and keeps every member, so the group is rendered
/// once whichever member is asked for first.
public struct RenderGroup: Sendable, Hashable {
    /// Names the group among the rendition's files (a safe path component that is no file's name).
    public let name: String
    public let rendition: String
    public let members: [Resource]

    public init(name: String, rendition: String, members: [Resource]) {
        precondition(members.allSatisfy { $0.rendition == rendition } && !members.isEmpty, "a group's members are files of its rendition")
        self.name = name
        self.rendition = rendition
        self.members = members
    }
}

/// One unit of a lecture's shared work: a file, or a render group made by one render.
public enum SharedWork: Sendable, Equatable {
    case file(Resource)
    case group(RenderGroup)
}

/// The playlist a student's playback URL answers with.
public struct PlaybackPlaylist: Sendable, Equatable {
    public let text: String
    /// When the copy has one rendition and nothing beside it (no captions, no audio group),
    /// `text` is that rendition's media playlist itself (RFC 8216 lets a playback URL name one):
    /// its id here. nil: `text` is a multivariant playlist.
    public let mediaPlaylistOf: String?

    public init(text: String, mediaPlaylistOf: String?) {
        self.text = text
        self.mediaPlaylistOf = mediaPlaylistOf
    }
}

/// A resource's bytes as one render made them, and what the render took where it knows (`-v`,
/// tests counting work): a shared segment only read, or a student's decoded and encoded.
public struct RenderedResource: Sendable {
    public let bytes: [UInt8]
    /// Pictures decoded to make it (0 for a segment copied from the input's packets); nil when not counted.
    public let decodedPictures: Int?
    /// Pictures encoded into it; nil when not counted.
    public let encodedPictures: Int?
    /// Video samples it holds; nil when not counted.
    public let videoSamples: Int?

    public init(bytes: [UInt8], decodedPictures: Int? = nil, encodedPictures: Int? = nil, videoSamples: Int? = nil) {
        self.bytes = bytes
        self.decodedPictures = decodedPictures
        self.encodedPictures = encodedPictures
        self.videoSamples = videoSamples
    }
}
