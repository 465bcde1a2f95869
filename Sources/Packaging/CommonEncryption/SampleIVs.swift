/// Where every IV comes from: derived, never random, so that a segment encrypted twice is the same bytes (shared
/// segments stay shared, a segment rendered on request equals batch's), and never the same for different content
/// under one key.
///
/// - `cenc` (counter mode, where one reused counter block would reveal the XOR of two plaintexts): each sample's IV is
///   `HMAC-SHA256(content key, "videowm cenc sample IV 1" ‖ KID ‖ SHA-256(clear segment) ‖ track ID ‖ sample index)`,
///   the first 16 bytes, with the top bit of byte 8 cleared. The segment's clear bytes (its `moof` carries its
///   sequence number and decode times, its `mdat` the pictures) identify its content: the same segment gives the same
///   IVs, any other content other IVs — a collision between two of n samples ever encrypted under one key has a
///   chance below n²/2¹²⁸ (128 − 1 bits), where 8-byte IVs (2⁶⁴) would make one likely at about 4·10⁹ samples, fewer
///   than a large platform's copies hold. The cleared bit keeps the counter's low 64 bits from wrapping inside a
///   sample (below 2⁶³ blocks), so decryptors that count in 64 bits (FFmpeg) and in 128 (OpenSSL, Chromium) agree.
///   The key keys the HMAC, so IVs reveal nothing about it and differ between keys.
/// - `cbcs` uses one constant IV per key, as the scheme defines (§10.4: CBC restarted from it at every subsample, so
///   equal first blocks show as equal, nothing more): a CPIX `explicitIV`, else
///   `HMAC-SHA256(content key, "videowm cbcs constant IV 1" ‖ KID)`, first 16 bytes.
/// - HLS AES-128 segments (`AES128Segments`): `HMAC-SHA256(key, "videowm aes-128 segment IV 1" ‖ SHA-256(clear
///   segment))`, first 16 bytes, written as the `EXT-X-KEY` IV; RFC 8216's default (the media sequence number)
///   would give two students' different segment k the same IV under the lecture's one key. A server that lists a
///   segment before making it (`videowm serve`) names it instead: `HMAC-SHA256(key, "videowm aes-128 named IV 1" ‖
///   name)`, the name being the file's URL path, which holds the lecture's revision and, for a student's own
///   segment, the student: one name, one content.
enum SampleIVs {
    static func cencSampleIV(key: ContentKey, segmentDigest: [UInt8], trackID: UInt32, sampleIndex: Int) throws(PackagingCryptoError) -> [UInt8] {
        var message = ByteWriter()
        message.append(Array("videowm cenc sample IV 1".utf8))
        message.append(key.keyID.bytes)
        message.append(segmentDigest)
        message.u32(trackID)
        message.u64(UInt64(sampleIndex))
        var iv = Array(try key.withUnsafeBytes { key throws(PackagingCryptoError) in try Digest.hmacSHA256(key: key, message: message.bytes) }.prefix(16))
        iv[8] &= 0x7F
        return iv
    }

    static func cbcsConstantIV(key: ContentKey) throws(PackagingCryptoError) -> [UInt8] {
        if let explicit = key.explicitIV { return explicit }
        let message = Array("videowm cbcs constant IV 1".utf8) + key.keyID.bytes
        return Array(try key.withUnsafeBytes { key throws(PackagingCryptoError) in try Digest.hmacSHA256(key: key, message: message) }.prefix(16))
    }

    static func aes128SegmentIV(key: ContentKey, clearSegment: [UInt8]) throws(PackagingCryptoError) -> [UInt8] {
        let message = Array("videowm aes-128 segment IV 1".utf8) + (try Digest.sha256(clearSegment))
        return Array(try key.withUnsafeBytes { key throws(PackagingCryptoError) in try Digest.hmacSHA256(key: key, message: message) }.prefix(16))
    }

    static func aes128NamedIV(key: ContentKey, name: String) throws(PackagingCryptoError) -> [UInt8] {
        let message = Array("videowm aes-128 named IV 1".utf8) + [0] + Array(name.utf8)
        return Array(try key.withUnsafeBytes { key throws(PackagingCryptoError) in try Digest.hmacSHA256(key: key, message: message) }.prefix(16))
    }
}
