import Foundation
import ImageMetadata

/// `--keep-metadata none|safe|all` and `--set-metadata KEY=VALUE` for stills: which of the
/// input's EXIF and XMP reach the stamped output, and what the operator sets.
///
/// The selection itself (what `safe` keeps, that the thumbnail, MakerNote, GPS under `safe`,
/// and Orientation never pass) is ImageMetadata's; this reads the blocks out of the input
/// file, whatever its format, and puts the chosen ones into the encoded output's bytes.
public struct StillMetadataChoice: Sendable, Equatable {
    /// `--keep-metadata`: which of the input's EXIF and XMP are kept.
    public var kept: MetadataKept
    /// `--set-metadata`: the copyright and artist written.
    public var edits: MetadataEdits

    /// By default nothing is kept and nothing set.
    public init(kept: MetadataKept = .none, edits: MetadataEdits = MetadataEdits()) {
        self.kept = kept
        self.edits = edits
    }

    /// Whether the output gets no metadata at all (the default): nothing is read.
    var writesNothing: Bool { kept == .none && edits.isEmpty }

    /// The EXIF and XMP blocks for an output of `width`×`height` from `input`'s, nil when none.
    /// `heif` gives the blocks of an HEIF input, which libheif has already read out.
    func blocks(forInput input: String, heif: StillMetadataBlocks?, width: Int, height: Int) -> StillMetadataBlocks? {
        guard !writesNothing else { return nil }
        let source = kept == .none ? StillMetadataBlocks() : (heif ?? Self.read(input))
        // Damaged EXIF counts as none: the stamp is not refused over its metadata.
        let inputExif = source.exif.flatMap { try? ExifContent(tiff: $0) }
        let exif = inputExif.map { $0.selected(kept, edits: edits, pictureSize: (width, height)) }
            ?? ExifContent.fromEdits(edits)
        let xmp = XMPPacket.selected(from: source.xmp.flatMap { XMPPacket($0) }, kept, edits: edits)
        let result = StillMetadataBlocks(exif: exif?.tiffBytes(), xmp: xmp?.serialized())
        return result == StillMetadataBlocks() ? nil : result
    }

    /// The blocks of a JPEG, PNG, WebP or TIFF file (a TIFF is itself the EXIF structure).
    static func read(_ path: String) -> StillMetadataBlocks {
        guard let data = FileManager.default.contents(atPath: path) else { return StillMetadataBlocks() }
        let bytes = [UInt8](data)
        let head = Array(bytes.prefix(12))
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return StillMetadataBlocks(jpeg: bytes) }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return StillMetadataBlocks(png: bytes) }
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) { return StillMetadataBlocks(exif: bytes) }
        if head.count == 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
            return StillMetadataBlocks(webp: bytes)
        }
        return StillMetadataBlocks()
    }

    /// `encoded` (a file of `format`) with `blocks` inserted; `path` names the output in errors.
    static func inserting(_ blocks: StillMetadataBlocks?, into encoded: [UInt8], format: StillImageWriter.Format, path: String) throws -> [UInt8] {
        guard let blocks else { return encoded }
        switch format {
        case .png: return blocks.inserted(intoPNG: encoded)
        case .webp: return blocks.inserted(intoWebP: encoded)
        case .avif: preconditionFailure("AVIFWriter writes an AVIF's metadata as it encodes")
        case .jpeg:
            do {
                return try blocks.inserted(intoJPEG: encoded)
            } catch {
                throw RequestError(subject: "--keep-metadata", problem: "\(path): \(error.description); choose less to keep")
            }
        }
    }
}
