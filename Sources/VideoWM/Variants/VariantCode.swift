import LeakTrace

/// A lecture's variant code as a copy is made from it: the codebook for the lecture's name, the
/// biases of its periods, and each student's codeword from their variables — derived the same
/// way by `batch` (a CSV row), `serve` (a token's `vars`) and `trace` (the rows it scores), so one
/// student gets one codeword whichever made their copy (docs/design/variant-marks.md §2, §4).
public struct VariantCode: Sendable {
    /// The lecture's codebook.
    public let codebook: VariantCodebook
    /// The bias of each period of the lecture.
    public let biases: [VariantBias]

    /// - Parameters:
    ///   - config: keyed (`keyed(with:)`): the code needs the marks' key (`keyNeeded` without it).
    ///   - input: the lecture's video as `batch` and `trace` are given it (its file name names the
    ///     lecture unless the variant layer's `lecture` does).
    ///   - periods: the lecture's periods (its segments).
    public init(config: WatermarkConfig, input: String, periods: Int) throws {
        guard let layer = config.variantLayer, let variants = layer.variants,
              let lecture = config.variantLecture(input: input) else { preconditionFailure("no variant layer") }
        guard let key = config.pathKey else { throw Self.keyNeeded(config: config) }
        codebook = VariantCodebook(derivation: key, lecture: lecture, alphabetSize: variants.count)
        biases = try codebook.biases(0..<periods)
    }

    /// The codeword of the student with `variables` (a CSV row's, or a token's `vars`): their
    /// variant of every period.
    public func codeword(variables: [String: String], config: WatermarkConfig) throws -> [Int] {
        let student = config.variantStudent(variables: variables) ?? ""
        return try codebook.codeword(student: student, positions: 0..<biases.count, biases: biases)
    }

    /// A variant layer's code is derived from the key: without one anybody could compute (and forge) a student's variants.
    public static func keyNeeded(config: WatermarkConfig) -> ConfigError {
        ConfigError(file: config.file, path: (config.variantLayer?.path ?? "watermarks") + ".variants",
                    problem: "a variant layer needs the platform's key (--key-file or VIDEOWM_KEY_FILE; 'videowm keygen' makes one): without it anybody could compute a student's variants")
    }
}

/// The names a server gives a lecture's shared variant files (docs/design/variant-marks.md §8): an
/// HMAC-SHA256 of the lecture, its revision, the segment and the variant, under a key derived from
/// the marks' key, in hex. The same for every student given that variant (one cached file, one URL
/// for shared caches); without the key nobody can tell from a name which variant it is, nor
/// name a variant file they were not given.
public struct VariantFileNames: Sendable {
    private let nameKey: [UInt8]
    private let presentation: [UInt8]

    /// Hex digits in a name (128 bits).
    public static let digits = 32

    /// - Parameters:
    ///   - key: the marks' key, derived (`WatermarkConfig.pathKey`).
    ///   - lecture: the lecture's name where it is served.
    ///   - revision: the revision its files belong to (new files, new names).
    public init(key: KeyedDerivation, lecture: String, revision: String) throws(CryptoError) {
        nameKey = try key.bytes(purpose: "variant file name", fields: [], count: HMACSHA256.byteCount)
        presentation = VariantCodebook.u32(lecture.utf8.count) + Array(lecture.utf8) + VariantCodebook.u32(revision.utf8.count) + Array(revision.utf8)
    }

    /// The name (hex digits, no extension) of segment `segment`'s variant `variant`.
    public func name(segment: Int, variant: Int) throws(CryptoError) -> String {
        let code = try HMACSHA256.authenticationCode(for: presentation + VariantCodebook.u32(segment) + VariantCodebook.u32(variant), key: nameKey)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in code.prefix(Self.digits / 2) { text += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: text, as: UTF8.self)
    }
}
