/// The top-level boxes of fragmented MP4 bytes, as far as cutting them into HLS files needs.
///
/// FFmpeg's MP4 muxer in fragmented mode with a delayed `moov` writes the initialization
/// section (`ftyp`, `moov`) on the first fragment flush; everything from the first `moof`
/// (or a `styp`/`sidx`/`emsg`/`prft` in front of it) on is media.
enum FragmentedMP4 {
    /// Box types that begin a media segment rather than belong to the initialization section.
    private static let mediaBoxTypes: Set<String> = ["moof", "styp", "sidx", "emsg", "prft"]

    /// How many leading bytes of `bytes` are the initialization section, or nil when the boxes
    /// do not parse (a size running past the end, a box smaller than its header).
    static func initializationLength(of bytes: UnsafeRawBufferPointer) -> Int? {
        var offset = 0
        while offset < bytes.count {
            guard let (size, type) = boxHeader(bytes, at: offset) else { return nil }
            if mediaBoxTypes.contains(type) { return offset }
            offset += size
        }
        return offset
    }

    /// The types of the top-level boxes, in order (nil when they do not parse).
    static func topLevelTypes(of bytes: UnsafeRawBufferPointer) -> [String]? {
        var types: [String] = []
        var offset = 0
        while offset < bytes.count {
            guard let (size, type) = boxHeader(bytes, at: offset) else { return nil }
            types.append(type)
            offset += size
        }
        return types
    }

    private static func boxHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> (size: Int, type: String)? {
        guard bytes.count - offset >= 8 else { return nil }
        func be32(_ at: Int) -> UInt64 { (0..<4).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) } }
        var size = be32(offset)
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        var header: UInt64 = 8
        if size == 1 {
            guard bytes.count - offset >= 16 else { return nil }
            size = be32(offset + 8) << 32 | be32(offset + 12)
            header = 16
        } else if size == 0 {
            size = UInt64(bytes.count - offset)
        }
        guard size >= header, size <= UInt64(bytes.count - offset) else { return nil }
        return (Int(size), type)
    }
}
