import VideoWM

/// The one place `serve` reaches HMAC-SHA256 and a constant-time comparison: the project's
/// crypto wrapper (`Sources/VideoWM/Keys`, libcrypto).
enum TokenCrypto {
    /// HMAC-SHA256 of `message` under `key`; nil only when libcrypto cannot allocate (the caller refuses).
    static func hmacSHA256(key: SecretKey, message: [UInt8]) -> [UInt8]? {
        try? HMACSHA256.authenticationCode(for: message, key: key)
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool { ConstantTime.equal(a, b) }
}
