import CCrypto

/// AES-128 in one of the modes the packaging schemes use, computed by libcrypto's EVP interface: one owning object
/// per `EVP_CIPHER_CTX`, freed (and wiped by libcrypto) when it goes.
///
/// The schemes need state carried across calls: Common Encryption's `cenc` runs one counter through every protected
/// range of a sample, `cbcs` one CBC chain through a subsample's encrypted blocks. So the cipher is fed ranges in
/// place (`apply(to:)`), and `restart(iv:)` begins a new chain with the same key.
final class AESCipher {
    enum Mode {
        /// Counter mode: ISO/IEC 23001-7 `cenc` (the whole 16-byte IV is the first counter block).
        case counter
        /// Cipher block chaining over whole blocks, no padding: `cbcs`.
        case blockChaining
        /// Cipher block chaining with PKCS#7 padding: HLS AES-128 segments (RFC 8216 §4.3.2.4).
        case blockChainingPadded
    }

    static let blockSize = 16
    static let keySize = 16

    private let context: OpaquePointer
    private let mode: Mode
    private let encrypting: Bool

    /// A cipher keyed with `key` (16 bytes) and started with `iv` (16 bytes).
    init(_ mode: Mode, encrypting: Bool, key: UnsafeBufferPointer<UInt8>, iv: [UInt8]) throws(PackagingCryptoError) {
        precondition(key.count == Self.keySize && iv.count == Self.blockSize, "AES-128 takes a 16-byte key and a 16-byte IV")
        guard let made = EVP_CIPHER_CTX_new() else { throw PackagingCryptoError(operation: "EVP_CIPHER_CTX_new") }
        context = made
        self.mode = mode
        self.encrypting = encrypting
        let cipher = mode == .counter ? EVP_aes_128_ctr() : EVP_aes_128_cbc()
        let status = iv.withUnsafeBufferPointer { iv in
            EVP_CipherInit_ex(context, cipher, nil, key.baseAddress, iv.baseAddress, encrypting ? 1 : 0)
        }
        guard status == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw PackagingCryptoError(operation: "EVP_CipherInit_ex (AES-128)")
        }
        EVP_CIPHER_CTX_set_padding(context, mode == .blockChainingPadded ? 1 : 0)
    }

    deinit { EVP_CIPHER_CTX_free(context) }

    /// Starts over from `iv` with the same key (a new sample's counter, a new subsample's chain).
    func restart(iv: [UInt8]) throws(PackagingCryptoError) {
        precondition(iv.count == Self.blockSize, "an AES IV has 16 bytes")
        let status = iv.withUnsafeBufferPointer { EVP_CipherInit_ex(context, nil, nil, nil, $0.baseAddress, -1) }
        guard status == 1 else { throw PackagingCryptoError(operation: "EVP_CipherInit_ex (new IV)") }
    }

    /// Encrypts or decrypts `range` of `bytes` in place. Block-chaining modes without padding take whole blocks only.
    func apply(to bytes: inout [UInt8], range: Range<Int>) throws(PackagingCryptoError) {
        precondition(mode != .blockChainingPadded, "a padded cipher changes the length: use finish(_:)")
        precondition(mode == .counter || range.count % Self.blockSize == 0, "CBC without padding takes whole blocks")
        guard !range.isEmpty else { return }
        var written: Int32 = 0
        let status = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            // A non-empty range: the buffer has an address.
            guard let start = buffer.baseAddress.map({ $0 + range.lowerBound }) else { return 0 }
            return EVP_CipherUpdate(context, start, &written, start, Int32(range.count))
        }
        guard status == 1, Int(written) == range.count else { throw PackagingCryptoError(operation: "EVP_CipherUpdate (AES-128)") }
    }

    /// The whole of `input` through a padded cipher: encryption adds 1–16 bytes of PKCS#7 padding, decryption
    /// removes it (and fails on bad padding, which is what a wrong key or damaged data gives).
    func finish(_ input: [UInt8]) throws(PackagingCryptoError) -> [UInt8] {
        precondition(mode == .blockChainingPadded, "only the padded cipher changes lengths")
        var output = [UInt8](repeating: 0, count: input.count + Self.blockSize)
        var written: Int32 = 0
        var tail: Int32 = 0
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { input -> Int32 in
                // The output holds a block at least, so it has an address; libcrypto wants one even for no input.
                guard let output = out.baseAddress else { return 0 }
                let source = input.baseAddress ?? UnsafePointer(output)
                guard EVP_CipherUpdate(context, output, &written, source, Int32(input.count)) == 1 else { return 0 }
                return EVP_CipherFinal_ex(context, output + Int(written), &tail)
            }
        }
        guard status == 1 else {
            throw PackagingCryptoError(operation: encrypting ? "EVP_CipherFinal_ex (AES-128-CBC)" : "AES-128-CBC decryption (wrong key or damaged padding)")
        }
        return Array(output[..<Int(written + tail)])
    }
}

/// SHA-256 and HMAC-SHA256 through libcrypto's one-shot EVP calls: the IV derivations' building blocks.
enum Digest {
    static func sha256(_ bytes: [UInt8]) throws(PackagingCryptoError) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) }
        }
        guard status == 1, length == 32 else { throw PackagingCryptoError(operation: "EVP_Digest (SHA-256)") }
        return digest
    }

    /// HMAC-SHA256 of `message` under `key` (RFC 2104).
    static func hmacSHA256(key: UnsafeBufferPointer<UInt8>, message: [UInt8]) throws(PackagingCryptoError) -> [UInt8] {
        guard let context = vwm_hmac_sha256_new(key.baseAddress, key.count) else {
            throw PackagingCryptoError(operation: "EVP_MAC_init (HMAC-SHA256)")
        }
        defer { EVP_MAC_CTX_free(context) }
        var code = [UInt8](repeating: 0, count: 32)
        var length = 0
        let status = message.withUnsafeBufferPointer { message in
            guard message.isEmpty || EVP_MAC_update(context, message.baseAddress, message.count) == 1 else { return Int32(0) }
            return code.withUnsafeMutableBufferPointer { EVP_MAC_final(context, $0.baseAddress, &length, 32) }
        }
        guard status == 1, length == 32 else { throw PackagingCryptoError(operation: "EVP_MAC_final (HMAC-SHA256)") }
        return code
    }
}
