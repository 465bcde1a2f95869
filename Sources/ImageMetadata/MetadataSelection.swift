/// Which of a still's metadata reaches the stamped output (`--keep-metadata`), and the
/// values an operator sets (`--set-metadata`).
///
/// Never kept, whatever the choice:
/// - the thumbnail (IFD1) and the MakerNote: both can hold an embedded preview, an unmarked
///   copy of the picture; a MakerNote's internal offsets also break when it is moved;
/// - Orientation: the pixels are already turned upright, so the tag would turn them again;
/// - tags that describe the stored pixels of the input (its size, strips, compression,
///   ICC and XMP copies inside EXIF): they would be wrong for the output, which carries its
///   own ICC profile and XMP packet.
public enum MetadataKept: String, Sendable, CaseIterable {
    /// Nothing (the default): only values set with `--set-metadata` are written.
    case none
    /// Authorship, capture date, camera and lens; never GPS, serial numbers or the above.
    case safe
    /// Everything except the never-kept tags above; GPS included.
    case all
}

/// Values set on the command line, replacing those from the input.
public struct MetadataEdits: Sendable, Equatable {
    public var copyright: String?
    public var artist: String?
    public var title: String?
    public var comment: String?

    public init(copyright: String? = nil, artist: String? = nil, title: String? = nil, comment: String? = nil) {
        self.copyright = copyright
        self.artist = artist
        self.title = title
        self.comment = comment
    }

    public var isEmpty: Bool { self == MetadataEdits() }

    /// The keys `--set-metadata` takes for each kind of output.
    public enum Target: Sendable {
        /// Stills: EXIF and XMP copyright and artist.
        case still
        /// Video: container title, comment and copyright tags.
        case video

        public var keys: [String] {
            switch self {
            case .still: ["copyright", "artist"]
            case .video: ["title", "comment", "copyright"]
            }
        }
    }

    /// Adds one `KEY=VALUE` argument. The value is taken exactly as typed (it may hold `=`);
    /// an unknown key, a repeated key or a missing `=` is an error whose text names the
    /// accepted keys.
    public mutating func add(_ argument: String, for target: Target) throws(MetadataArgumentError) {
        guard let equals = argument.firstIndex(of: "=") else {
            throw MetadataArgumentError("--set-metadata \(argument): expected KEY=VALUE with KEY one of \(target.keys.joined(separator: ", "))")
        }
        let key = argument[..<equals].lowercased(), value = String(argument[argument.index(after: equals)...])
        guard target.keys.contains(key) else {
            let kind = target == .still ? "stills" : "videos"
            throw MetadataArgumentError("--set-metadata \(key): \(kind) take \(target.keys.joined(separator: ", "))")
        }
        guard !value.contains("\u{0}") else { throw MetadataArgumentError("--set-metadata \(key): the value contains a NUL character") }
        let path: WritableKeyPath<MetadataEdits, String?> = switch key {
        case "copyright": \.copyright
        case "artist": \.artist
        case "title": \.title
        default: \.comment
        }
        guard self[keyPath: path] == nil else { throw MetadataArgumentError("--set-metadata \(key) is given twice") }
        self[keyPath: path] = value
    }
}

/// A `--set-metadata` argument that cannot be used; the text is the whole message.
public struct MetadataArgumentError: Error, Equatable, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension ExifContent {
    /// Tags `safe` keeps, per directory: who made and owns the picture, when, with what camera
    /// and lens. Serial numbers (0xA431, 0xA435) stay out: like GPS, they identify a person's
    /// equipment rather than credit the picture.
    static let safePrimary: Set<UInt16> = [ExifTag.make, ExifTag.model, ExifTag.dateTime, ExifTag.artist, ExifTag.copyright]
    static let safePhoto: Set<UInt16> = [
        ExifTag.exifVersion, ExifTag.dateTimeOriginal, ExifTag.dateTimeDigitized,
        ExifTag.offsetTime, ExifTag.offsetTimeOriginal, ExifTag.offsetTimeDigitized,
        ExifTag.subSecTime, ExifTag.subSecTimeOriginal, ExifTag.subSecTimeDigitized,
        ExifTag.lensSpecification, ExifTag.lensMake, ExifTag.lensModel,
    ]
    /// IFD0 tags `all` still drops: Orientation, and those that describe the input's stored
    /// pixels (size, sample layout, strips, compression, thumbnail offsets, SubIFDs) or embed
    /// an XMP packet (0x02BC) or ICC profile (0x8773) that the output carries on its own.
    static let neverKeptPrimary: Set<UInt16> = [
        ExifTag.orientation, 0x0100, 0x0101, 0x0102, 0x0103, 0x0106, 0x0111, 0x0115, 0x0116, 0x0117,
        0x011C, 0x0201, 0x0202, 0x0212, 0x014A, 0x02BC, 0x8773,
    ]
    /// Exif IFD tags `all` drops: the MakerNote, and the input's pixel dimensions.
    static let neverKeptPhoto: Set<UInt16> = [ExifTag.makerNote, ExifTag.pixelXDimension, ExifTag.pixelYDimension]

    /// What `kept` keeps of this EXIF, with `edits` applied; nil when that leaves nothing.
    /// `pictureSize`, the output's size, is written as PixelX/YDimension when an Exif IFD is.
    public func selected(_ kept: MetadataKept, edits: MetadataEdits,
                         pictureSize: (width: Int, height: Int)? = nil) -> ExifContent? {
        var result = ExifContent(byteOrder: byteOrder)
        switch kept {
        case .none:
            break
        case .safe:
            result.primary = primary.filter { Self.safePrimary.contains($0.tag) }
            result.photo = photo.filter { Self.safePhoto.contains($0.tag) }
        case .all:
            result.primary = primary.filter { !Self.neverKeptPrimary.contains($0.tag) }
            result.photo = photo.filter { !Self.neverKeptPhoto.contains($0.tag) }
            result.gps = gps
            result.interoperability = interoperability
        }
        // An Exif IFD left with nothing but its version says nothing: leave it out.
        if result.photo.allSatisfy({ $0.tag == ExifTag.exifVersion }) { result.photo = [] }
        result.apply(edits, pictureSize: pictureSize)
        return result.isEmpty ? nil : result
    }

    /// EXIF holding only `edits` (for `--keep-metadata none`, or an input without EXIF).
    public static func fromEdits(_ edits: MetadataEdits, byteOrder: TIFFByteOrder = .bigEndian) -> ExifContent? {
        var result = ExifContent(byteOrder: byteOrder)
        result.apply(edits, pictureSize: nil)
        return result.isEmpty ? nil : result
    }

    private mutating func apply(_ edits: MetadataEdits, pictureSize: (width: Int, height: Int)?) {
        if let copyright = edits.copyright { setText(copyright, for: ExifTag.copyright) }
        if let artist = edits.artist { setText(artist, for: ExifTag.artist) }
        guard !photo.isEmpty else { return }
        // The Exif IFD's version is required by the standard: a kept IFD without one gets 2.32.
        if !photo.contains(where: { $0.tag == ExifTag.exifVersion }) {
            photo.append(TIFFEntry(tag: ExifTag.exifVersion, type: 7, count: 4, value: Array("0232".utf8)))
        }
        if let pictureSize {
            let writer = TIFFWriter(byteOrder: byteOrder)
            photo.append(TIFFEntry(tag: ExifTag.pixelXDimension, type: 4, count: 1, value: writer.bytes32(UInt32(pictureSize.width))))
            photo.append(TIFFEntry(tag: ExifTag.pixelYDimension, type: 4, count: 1, value: writer.bytes32(UInt32(pictureSize.height))))
        }
    }
}
