import Animation
import Foundation
import Testing
@testable import VideoWM

/// Keyed mark paths: seeds only the key's holder can compute, one per row text and layer,
/// the same for two spellings of one address.
@Suite("keyed derivation")
struct KeyedDerivationTests {
    static let keyA = SecretKey(bytes: (0..<32).map { UInt8($0) })
    static let keyB = SecretKey(bytes: (0..<32).map { UInt8(255 - $0) })

    @Test func theSchemeIsHKDFWithADocumentedInfo() throws {
        // info = purpose ‖ 0 ‖ u32be(4) ‖ field, expanded from HKDF-Extract(salt, key): checked by hand against HKDFSHA256.
        let derivation = try KeyedDerivation(key: Self.keyA)
        let prk = try HKDFSHA256.extract(salt: Array("videowm keyed derivation v1".utf8), inputKeyMaterial: (0..<32).map { UInt8($0) })
        let info = Array("mark path seed".utf8) + [0, 0, 0, 0, 4, 0, 0, 0, 2] + [0, 0, 0, 4, 0] + Array("a@b".utf8)
        let expected = try HKDFSHA256.expand(pseudorandomKey: prk, info: info, byteCount: 8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(try derivation.markPathSeed(layerIndex: 2, text: "a@b") == expected)
    }

    @Test func seedsDependOnKeyTextAndLayer() throws {
        let a = try KeyedDerivation(key: Self.keyA), b = try KeyedDerivation(key: Self.keyB)
        let texts = (0..<300).map { "student\($0)@example.edu" }
        let seedsA = try texts.map { try a.markPathSeed(layerIndex: 0, text: $0) }
        let seedsB = try texts.map { try b.markPathSeed(layerIndex: 0, text: $0) }
        #expect(Set(seedsA).count == 300)
        #expect(zip(seedsA, seedsB).allSatisfy { $0 != $1 })
        #expect(zip(seedsA, texts).allSatisfy { $0 != RandomSeed.from(text: $1) })
        #expect(try a.markPathSeed(layerIndex: 1, text: texts[0]) != seedsA[0])
        #expect(try KeyedDerivation(key: SecretKey(bytes: (0..<32).map { UInt8($0) })).markPathSeed(layerIndex: 0, text: texts[0]) == seedsA[0])
        // A fixed config seed gives every row one path, keyed.
        #expect(try a.markPathSeed(layerIndex: 0, configSeed: 7) == a.markPathSeed(layerIndex: 0, configSeed: 7))
        #expect(try a.markPathSeed(layerIndex: 0, configSeed: 7) != b.markPathSeed(layerIndex: 0, configSeed: 7))
    }

    /// Two spellings of one address — precomposed or combining accents, in either order of
    /// combining marks — give one path; distinct addresses do not.
    @Test func textIsNormalisedToNFCFirst() throws {
        let derivation = try KeyedDerivation(key: Self.keyA)
        let spellings = ["zoé.ångström@exämple.edu", "zoe\u{301}.a\u{30A}ngstro\u{308}m@exa\u{308}mple.edu"]
        #expect(Array(spellings[0].utf8) != Array(spellings[1].utf8))
        #expect(try derivation.markPathSeed(layerIndex: 0, text: spellings[0]) == derivation.markPathSeed(layerIndex: 0, text: spellings[1]))
        // Canonical reordering of combining marks: cedilla (ccc 202) before acute (230).
        #expect(UnicodeNormalization.nfcBytes(of: "e\u{301}\u{327}") == UnicodeNormalization.nfcBytes(of: "e\u{327}\u{301}"))
        #expect(UnicodeNormalization.nfcBytes(of: "e\u{301}\u{327}") == Array("ȩ\u{301}".utf8))
        // NFC keeps compatibility characters (ﬁ, full-width) and Hangul syllables as they are.
        #expect(UnicodeNormalization.nfcBytes(of: "ﬁ＠한") == Array("ﬁ＠한".utf8))
        #expect(UnicodeNormalization.nfcBytes(of: "\u{1100}\u{1161}\u{11A8}") == Array("각".utf8))
        #expect(UnicodeNormalization.nfcBytes(of: "ada@example.com") == Array("ada@example.com".utf8))
        #expect(try derivation.markPathSeed(layerIndex: 0, text: "zoe@example.edu") != derivation.markPathSeed(layerIndex: 0, text: "zoé@example.edu"))
    }

    static func config(_ json: String) throws -> WatermarkConfig {
        try WatermarkConfig.parse(Data(json.utf8), file: "marks.json", baseDirectory: ".", warn: { _ in })
    }

    @Test func aKeyedConfigMovesRandomTextLayersOnly() throws {
        let config = try Self.config(#"""
            { "watermarks": [ { "text": "{email}", "animation": { "type": "random", "duration": 1000 } },
                              { "text": "{email}", "animation": { "type": "pingPong", "duration": 1000 } },
                              { "text": "CONFIDENTIAL", "animation": { "type": "random", "duration": 1000, "seed": 5 } } ] }
            """#)
        let keyed = config.keyed(with: try KeyedDerivation(key: Self.keyA))
        let plain = try config.layerSpecs(variables: ["email": "ada@example.com"], images: ImageCache())
        let marked = try keyed.layerSpecs(variables: ["email": "ada@example.com"], images: ImageCache())
        guard case .random(_, let plainSeed, _) = plain[0].timeline.motion, case .random(_, let keyedSeed, _) = marked[0].timeline.motion,
              case .random(_, let fixedSeed, _) = marked[2].timeline.motion else {
            Issue.record("random motions expected")
            return
        }
        #expect(plainSeed == RandomSeed.from(text: "ada@example.com"))
        #expect(keyedSeed == (try KeyedDerivation(key: Self.keyA).markPathSeed(layerIndex: 0, text: "ada@example.com")))
        #expect(fixedSeed == (try KeyedDerivation(key: Self.keyA).markPathSeed(layerIndex: 2, configSeed: 5)))
        #expect(marked[1].timeline == plain[1].timeline)
        #expect(config.layersWithRowDependentPaths(columns: ["email"]).map(\.index) == [0])
        #expect(config.layersWithRowDependentPaths(columns: ["id"]).isEmpty)
    }
}
