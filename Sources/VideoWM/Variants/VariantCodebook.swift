import LeakTrace

/// A lecture's variant code, derived from the marks' key: the bias of every position and every
/// student's codeword (docs/design/variant-marks.md §4). Nobody without the key can compute either, so
/// nobody can predict a student's sequence of variants or forge one.
///
/// Values come from keyed tracing's `KeyedDerivation` (issue 27), HKDF-SHA256 (RFC 5869):
/// PRK = Extract(salt "videowm keyed derivation v1", key), then Expand(PRK, purpose ‖ 0x00 ‖ for
/// each field u32be(length) ‖ field), under purposes of its own (so its values are independent
/// of the marks' path seeds); `VariantConfigTests` pins the construction.
///
/// - biases: purpose "variant code bias", fields [lecture, u32be(q), u32be(position)]: 4·(q − 1)
///   bytes, the q − 1 uniform words of `VariantBias(uniformWords:)`;
/// - codewords: purpose "variant codeword", fields [lecture, student, u32be(q), u32be(block)]:
///   8 bytes per position, `positionsPerBlock` positions per block, each the uniform word of
///   `VariantBias.symbol(forUniformWord:)`.
///
/// Texts are UTF-8 in Unicode NFC, so two spellings of one name give one codeword.
public struct VariantCodebook: Sendable {
    /// Positions whose codeword words one HKDF expansion gives (8 bytes each, 8160 at most).
    static let positionsPerBlock = HKDFSHA256.maximumByteCount / 8

    let material: KeyedDerivation
    /// The lecture's name in the derivation.
    public let lecture: String
    /// q: the number of variants.
    public let alphabetSize: Int

    /// The codebook of `lecture` with q = `alphabetSize` symbols, from a derivation already made.
    public init(derivation: KeyedDerivation, lecture: String, alphabetSize: Int) {
        precondition(VariantBias.alphabetSizes.contains(alphabetSize), "a variant code has 2…8 symbols")
        material = derivation
        self.lecture = lecture
        self.alphabetSize = alphabetSize
    }

    /// The codebook of `lecture` with q = `alphabetSize` symbols, from the key.
    public init(key: SecretKey, lecture: String, alphabetSize: Int) throws(CryptoError) {
        self.init(derivation: try KeyedDerivation(key: key), lecture: lecture, alphabetSize: alphabetSize)
    }

    /// The biases of positions `positions` (segment indices).
    public func biases(_ positions: Range<Int>) throws(CryptoError) -> [VariantBias] {
        var biases: [VariantBias] = []
        biases.reserveCapacity(positions.count)
        for position in positions {
            let bytes = try material.bytes(purpose: "variant code bias",
                                           fields: [Self.text(lecture), Self.u32(alphabetSize), Self.u32(position)],
                                           count: 4 * (alphabetSize - 1))
            biases.append(VariantBias(uniformWords: (0..<(alphabetSize - 1)).map { word in
                bytes[(4 * word)..<(4 * word + 4)].reduce(0) { $0 << 8 | UInt32($1) }
            }))
        }
        return biases
    }

    /// The student's symbol at each position of `positions`, drawn from `biases` (the same
    /// positions' biases, from `biases(_:)`).
    public func codeword(student: String, positions: Range<Int>, biases: [VariantBias]) throws(CryptoError) -> [Int] {
        precondition(biases.count == positions.count, "one bias per position")
        var symbols: [Int] = []
        symbols.reserveCapacity(positions.count)
        var block = -1
        var words: [UInt8] = []
        for (offset, position) in positions.enumerated() {
            if position / Self.positionsPerBlock != block {
                block = position / Self.positionsPerBlock
                words = try material.bytes(purpose: "variant codeword",
                                           fields: [Self.text(lecture), Self.text(student), Self.u32(alphabetSize), Self.u32(block)],
                                           count: 8 * Self.positionsPerBlock)
            }
            let start = 8 * (position % Self.positionsPerBlock)
            let word = words[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            symbols.append(biases[offset].symbol(forUniformWord: word))
        }
        return symbols
    }

    static func u32(_ value: Int) -> [UInt8] {
        precondition(value >= 0 && value <= Int(UInt32.max))
        return (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// A text field: UTF-8 in NFC (the standard library's own normalisation, no ICU; ASCII is NFC already).
    static func text(_ value: String) -> [UInt8] {
        value.utf8.allSatisfy { $0 < 0x80 } ? Array(value.utf8) : value._nfcCodeUnits
    }
}
