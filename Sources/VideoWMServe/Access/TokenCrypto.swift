import VideoWM

/// The one place `serve` reaches HMAC-SHA256 and a constant-time comparison.
///
/// Interim: the project's crypto wrapper (HMAC/HKDF and constant-time compare, issue 27) is
/// not on main yet, so HMAC is RFC 2104 over VideoWM's SHA-256 (libavutil's) here. When the
/// wrapper lands, these two functions forward to it and nothing else in `serve` changes.
enum TokenCrypto {
    static let blockSize = 64

    /// HMAC-SHA256 (RFC 2104) of `message` under `key`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > blockSize ? ContentDigest.sha256(key) : key
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        let inner = ContentDigest.sha256(block.map { $0 ^ 0x36 } + message)
        return ContentDigest.sha256(block.map { $0 ^ 0x5c } + inner)
    }

    /// Whether two byte strings are equal, in a time that depends only on their lengths.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
