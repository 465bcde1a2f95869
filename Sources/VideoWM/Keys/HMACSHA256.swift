import CCrypto

/// HMAC-SHA256 (RFC 2104 with SHA-256), computed by OpenSSL's libcrypto: one-shot with
/// `authenticationCode(for:key:)`, or streaming (`init(key:)`, `update`, `finalize`).
///
/// One owning object per EVP_MAC_CTX. libcrypto is in the process already (FFmpeg's libraries
/// load it), so linking it costs nothing; docs/design/architecture.md ("Keys") says why not libavutil's `av_hmac`.
public final class HMACSHA256 {
    /// Bytes in a code (and in SHA-256's output).
    public static let byteCount = 32

    private let context: OpaquePointer
    private var finished = false

    /// A streaming computation keyed with `key` (any length; RFC 2104 hashes keys longer than
    /// the 64-byte block, and pads shorter ones with zeros).
    public init(key: some Sequence<UInt8>) throws(CryptoError) {
        let made = withContiguous(key) { key in
            // libcrypto wants an address even for an empty key.
            key.isEmpty ? withUnsafePointer(to: UInt8(0)) { vwm_hmac_sha256_new($0, 0) } : vwm_hmac_sha256_new(key.baseAddress, key.count)
        }
        guard let made else { throw .fromLibrary("EVP_MAC_init (HMAC-SHA256)") }
        context = made
    }

    /// A streaming computation keyed with a key file's key.
    public convenience init(key: SecretKey) throws(CryptoError) {
        try self.init(key: key.bytes)
    }

    deinit { EVP_MAC_CTX_free(context) }

    /// Feeds more of the message.
    public func update(_ bytes: some Sequence<UInt8>) throws(CryptoError) {
        precondition(!finished, "HMACSHA256 updated after finalize")
        let status = withContiguous(bytes) { bytes in
            bytes.isEmpty ? 1 : EVP_MAC_update(context, bytes.baseAddress, bytes.count)
        }
        guard status == 1 else { throw .fromLibrary("EVP_MAC_update") }
    }

    /// The code of everything fed so far; the object is spent afterwards.
    public func finalize() throws(CryptoError) -> [UInt8] {
        precondition(!finished, "HMACSHA256 finalized twice")
        finished = true
        var code = [UInt8](repeating: 0, count: Self.byteCount)
        var length = 0
        let status = code.withUnsafeMutableBufferPointer { EVP_MAC_final(context, $0.baseAddress, &length, $0.count) }
        guard status == 1, length == Self.byteCount else { throw .fromLibrary("EVP_MAC_final") }
        return code
    }

    /// The HMAC-SHA256 of `message` under `key`.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: some Sequence<UInt8>) throws(CryptoError) -> [UInt8] {
        let mac = try HMACSHA256(key: key)
        try mac.update(message)
        return try mac.finalize()
    }

    /// The HMAC-SHA256 of `message` under a key file's key.
    public static func authenticationCode(for message: some Sequence<UInt8>, key: SecretKey) throws(CryptoError) -> [UInt8] {
        try authenticationCode(for: message, key: key.bytes)
    }
}

/// Constant-time comparison, for checking a code someone presents against the one computed:
/// `==` on arrays stops at the first differing byte, which tells an attacker how many leading
/// bytes of a forged code were right.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes. Takes the same time for every pair of the same
    /// lengths (libcrypto's `CRYPTO_memcmp`); arrays of different lengths differ at once (the
    /// length of a code is no secret).
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 } }
    }
}

/// Random bytes from libcrypto's generator (seeded from the kernel's `getrandom`): for keys and
/// anything else an attacker must not guess.
public enum SecureRandom {
    /// `count` bytes from OpenSSL's `RAND_bytes`.
    public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
        precondition(count >= 0 && count <= Int(Int32.max), "random byte count out of range")
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard status == 1 else { throw .fromLibrary("RAND_bytes") }
        return bytes
    }
}

extension CryptoError {
    /// The failure of `operation`, with libcrypto's oldest queued reason (the queue is then cleared).
    static func fromLibrary(_ operation: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else { return CryptoError(operation: operation) }
        var text = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &text, text.count)
        let bytes = text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return CryptoError(operation: operation, reason: String(decoding: bytes, as: UTF8.self))
    }
}

/// Runs `body` on the bytes of `sequence` laid out contiguously (copied when they are not).
func withContiguous<R>(_ sequence: some Sequence<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = sequence.withContiguousStorageIfAvailable(body) { return result }
    return Array(sequence).withUnsafeBufferPointer(body)
}
