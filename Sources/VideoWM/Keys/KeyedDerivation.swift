/// Values only the key's holder can compute, one independent family per purpose: the seeds of
/// keyed mark paths now, a fingerprinting code's codewords later.
///
/// The platform's key is extracted once into a pseudorandom key (HKDF-SHA256's extract step,
/// RFC 5869, with a fixed salt naming this scheme); each value is then its expand step with an
/// `info` that spells out, unambiguously, what the value is for:
///
///     info = UTF-8(purpose) ‖ 0x00 ‖ for each field: u32be(field.count) ‖ field
///
/// Different purposes or fields give unrelated values; without the key none can be computed,
/// and seeing any number of them (a student's own path) tells nothing about another.
public struct KeyedDerivation: Sendable, Equatable {
    /// HKDF's salt: names the scheme and its version, so a future scheme derives other values.
    static let salt = Array("videowm keyed derivation v1".utf8)

    private let pseudorandomKey: SecretKey

    /// Extracts the derivation's pseudorandom key from `key` once (HKDF-Extract).
    public init(key: SecretKey) throws(CryptoError) {
        let extracted = try HKDFSHA256.extract(salt: Self.salt, inputKeyMaterial: key.bytes)
        pseudorandomKey = SecretKey(bytes: extracted, file: key.file)
    }

    /// Two derivations are equal when they come from one key (compared in constant time).
    public static func == (a: KeyedDerivation, b: KeyedDerivation) -> Bool {
        ConstantTime.equal(Array(a.pseudorandomKey.bytes), Array(b.pseudorandomKey.bytes))
    }

    /// The key file the derivation comes from, for messages (never the bytes).
    public var file: String? { pseudorandomKey.file }

    /// `count` bytes for `purpose` and `fields` (at most `HKDFSHA256.maximumByteCount`).
    public func bytes(purpose: String, fields: [[UInt8]], count: Int) throws(CryptoError) -> [UInt8] {
        var info = Array(purpose.utf8)
        precondition(!info.contains(0), "a purpose is text without NUL")
        info.append(0)
        for field in fields {
            info += bigEndianBytes(UInt32(field.count))
            info += field
        }
        return try HKDFSHA256.expand(pseudorandomKey: Array(pseudorandomKey.bytes), info: info, byteCount: count)
    }

    /// A 64-bit value for `purpose` and `fields`: the first 8 bytes, big-endian.
    public func uint64(purpose: String, fields: [[UInt8]]) throws(CryptoError) -> UInt64 {
        try bytes(purpose: purpose, fields: fields, count: 8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}

extension KeyedDerivation {
    /// The purpose string of mark-path seeds.
    static let markPathPurpose = "mark path seed"

    /// The seed of a `random` layer's path whose seed would otherwise be its rendered text:
    /// fields u32be(layer index), 0x00 ‖ UTF-8(NFC(text)).
    ///
    /// The text is normalised to NFC first, so two spellings of one address (a precomposed "é"
    /// or "e" and a combining accent) give one path. The layer's index keeps two layers with one
    /// text on separate paths.
    public func markPathSeed(layerIndex: Int, text: String) throws(CryptoError) -> UInt64 {
        try uint64(purpose: Self.markPathPurpose, fields: [bigEndianBytes(UInt32(layerIndex)), [0] + UnicodeNormalization.nfcBytes(of: text)])
    }

    /// The seed of a `random` layer whose config gives a `seed`: fields u32be(layer index),
    /// 0x01 ‖ u64be(seed). Such a layer keeps one path for every row, as without a key.
    public func markPathSeed(layerIndex: Int, configSeed: UInt64) throws(CryptoError) -> UInt64 {
        try uint64(purpose: Self.markPathPurpose, fields: [bigEndianBytes(UInt32(layerIndex)), [1] + bigEndianBytes(configSeed)])
    }
}

/// Unicode normalisation without ICU: Swift's standard library carries its own normalisation
/// data (since 5.7) and exposes NFC as `_nfcCodeUnits`, the call Foundation's
/// `precomposedStringWithCanonicalMapping` makes on its side. Measured in a release build: the
/// first NFC of a non-ASCII text pages in 0.33 MB of the standard library's tables, Foundation's
/// call 0.70 MB; ASCII text, already NFC, costs nothing. Only keyed paths normalise, so a run
/// without a key pays nothing. `KeyedDerivationTests` pins the results.
enum UnicodeNormalization {
    static func nfcBytes(of text: String) -> [UInt8] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return Array(text.utf8) }
        return text._nfcCodeUnits
    }
}

func bigEndianBytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    (0..<T.bitWidth / 8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}
