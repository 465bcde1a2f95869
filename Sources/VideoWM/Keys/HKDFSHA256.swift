/// HKDF with SHA-256 (RFC 5869): turns a key into as many independent keys as there are
/// purposes, by naming each purpose in `info`. Built on `HMACSHA256` exactly as the RFC
/// writes it (a dozen lines, where libcrypto's EVP_KDF would take a parameter list per call).
public enum HKDFSHA256 {
    /// The most bytes `expand` can give: 255 blocks of 32.
    public static let maximumByteCount = 255 * HMACSHA256.byteCount

    /// PRK = HMAC-SHA256(salt, IKM). An empty salt stands for 32 zero bytes, as the RFC says
    /// (HMAC pads a short key with zeros, so both give one result).
    public static func extract(salt: some Sequence<UInt8>, inputKeyMaterial: some Sequence<UInt8>) throws(CryptoError) -> [UInt8] {
        try HMACSHA256.authenticationCode(for: inputKeyMaterial, key: salt)
    }

    /// OKM = the first `byteCount` bytes of T(1) | T(2) | …, where T(i) = HMAC-SHA256(PRK, T(i−1) | info | i).
    public static func expand(pseudorandomKey: [UInt8], info: some Sequence<UInt8>, byteCount: Int) throws(CryptoError) -> [UInt8] {
        precondition(byteCount >= 0 && byteCount <= maximumByteCount, "HKDF-SHA256 gives at most 8160 bytes")
        let info = Array(info)
        var output: [UInt8] = []
        output.reserveCapacity(byteCount)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < byteCount {
            let mac = try HMACSHA256(key: pseudorandomKey)
            try mac.update(block)
            try mac.update(info)
            try mac.update(CollectionOfOne(counter))
            block = try mac.finalize()
            output.append(contentsOf: block.prefix(byteCount - output.count))
            counter &+= 1
        }
        return output
    }

    /// Extract, then expand: `byteCount` bytes of key for the purpose `info`.
    public static func deriveKey(inputKeyMaterial: some Sequence<UInt8>, salt: some Sequence<UInt8>, info: some Sequence<UInt8>,
                                 byteCount: Int) throws(CryptoError) -> [UInt8] {
        try expand(pseudorandomKey: try extract(salt: salt, inputKeyMaterial: inputKeyMaterial), info: info, byteCount: byteCount)
    }
}
