/// HLS AES-128 (RFC 8216 §4.3.2.4, §5.2): each media segment encrypted whole with AES-128-CBC and PKCS#7 padding,
/// the key a 16-byte file the playlist's `EXT-X-KEY` URI names. The initialization segment (`EXT-X-MAP`) stays clear:
/// it sits before the first `EXT-X-KEY` in the playlist, and holds no picture.
public enum AES128Segments {
    /// Where a segment's IV comes from.
    public enum IVSource: Sendable, Equatable {
        /// RFC 8216's default: the media sequence number as a 128-bit big-endian integer; the `EXT-X-KEY` needs no IV.
        /// The same for every student's segment k: use it only where every row's segment k is the same content.
        case mediaSequence(UInt64)
        /// 16 given bytes, written as the `EXT-X-KEY` IV.
        case explicit([UInt8])
        /// Derived from the key and the clear segment (`SampleIVs`): the same segment gets the same IV (shared
        /// segments stay shared), different content a different one. Written as the `EXT-X-KEY` IV.
        case derived
        /// Derived from the key and a name that says which content the segment is (a served file's URL
        /// path, which changes with the lecture's revision and names the student of an own segment): for
        /// a playlist written before its segments are made. Written as the `EXT-X-KEY` IV.
        case named(String)
    }

    public struct EncryptedSegment: Sendable, Equatable {
        public var bytes: [UInt8]
        public var iv: [UInt8]
        /// Whether the playlist must state the IV (`EXT-X-KEY` `IV=0x…`): every source but `.mediaSequence`.
        public var ivIsExplicit: Bool
    }

    /// The 16-byte IV of a media sequence number.
    public static func iv(mediaSequence: UInt64) -> [UInt8] {
        var writer = ByteWriter()
        writer.u64(0)
        writer.u64(mediaSequence)
        return writer.bytes
    }

    /// The IV `.named(name)` gives: known before the segment is made, so a playlist can state it first.
    public static func iv(key: ContentKey, name: String) throws(PackagingCryptoError) -> [UInt8] {
        try SampleIVs.aes128NamedIV(key: key, name: name)
    }

    public static func encrypt(_ segment: [UInt8], key: ContentKey, iv source: IVSource) throws(PackagingCryptoError) -> EncryptedSegment {
        let iv: [UInt8]
        switch source {
        case .mediaSequence(let number): iv = Self.iv(mediaSequence: number)
        case .explicit(let bytes):
            precondition(bytes.count == 16, "an AES-128 IV has 16 bytes")
            iv = bytes
        case .derived: iv = try SampleIVs.aes128SegmentIV(key: key, clearSegment: segment)
        case .named(let name): iv = try Self.iv(key: key, name: name)
        }
        let cipher = try key.withUnsafeBytes { key throws(PackagingCryptoError) in
            try AESCipher(.blockChainingPadded, encrypting: true, key: key, iv: iv)
        }
        let isExplicit = if case .mediaSequence = source { false } else { true }
        return EncryptedSegment(bytes: try cipher.finish(segment), iv: iv, ivIsExplicit: isExplicit)
    }

    /// The clear segment; a wrong key or IV fails on the padding (almost always) or gives other bytes.
    public static func decrypt(_ segment: [UInt8], key: ContentKey, iv: [UInt8]) throws(PackagingCryptoError) -> [UInt8] {
        let cipher = try key.withUnsafeBytes { key throws(PackagingCryptoError) in
            try AESCipher(.blockChainingPadded, encrypting: false, key: key, iv: iv)
        }
        return try cipher.finish(segment)
    }
}
