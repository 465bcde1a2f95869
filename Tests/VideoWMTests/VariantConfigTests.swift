import Foundation
import LeakTrace
import Overlay
import Testing
@testable import VideoWM

/// The `variants` object of a tiled layer (docs/design/variant-marks.md §2): its fields, defaults and
/// rules, the names a code is derived for, and the codebook derived from the key.
@Suite("variant layers: config and code")
struct VariantConfigTests {
    static let tiled = #""text": "CS 101", "tile": { "angle": -30 }, "opacity": 0.15"#

    @Test func theVariantsObjectIsReadWithItsDefaults() throws {
        let config = try parse(#"{ "watermarks": [ { "text": "{email}" }, { \#(Self.tiled), "variants": {} } ] }"#)
        let variants = try #require(config.layers[1].variants)
        #expect(variants.count == 4 && variants.periodSeconds == 2 && variants.lecture == nil && variants.student == nil)
        #expect(config.variantLayer?.index == 1 && config.layers[0].variants == nil)

        let given = try parse(#"{ "watermarks": [ { \#(Self.tiled), "variants": { "count": 8, "seconds": 6, "lecture": "cs101-w3", "student": "{email}" } } ] }"#)
        let spec = try #require(given.layers[0].variants)
        #expect(spec.count == 8 && spec.periodSeconds == 6 && spec.lecture == "cs101-w3" && spec.student?.variableNames == ["email"])
        // Bound to a layer spec: the compositor's variants.
        let layers = try given.layerSpecs(variables: ["email": "a@b.c"], images: ImageCache())
        #expect(layers[0].variants == LayerVariants(count: 8, periodSeconds: 6))
    }

    @Test func badVariantsAreRefusedNamingTheField() {
        let cases: [(String, String, String)] = [
            (#"{ "text": "CS 101", "variants": {} }"#, "watermarks[0].variants", "needs \"tile\""),
            (#"{ \#(Self.tiled), "unless": { "plan": ["pro"] }, "variants": {} }"#, "watermarks[0].variants", "unless"),
            (#"{ "text": "CS 101 {pts}", "tile": {}, "variants": {} }"#, "watermarks[0].variants", "per frame"),
            (#"{ \#(Self.tiled), "variants": { "count": 1 } }"#, "watermarks[0].variants.count", "between 2 and 8"),
            (#"{ \#(Self.tiled), "variants": { "count": 9 } }"#, "watermarks[0].variants.count", "between 2 and 8"),
            (#"{ \#(Self.tiled), "variants": { "count": 2.5 } }"#, "watermarks[0].variants.count", "whole number"),
            (#"{ \#(Self.tiled), "variants": { "seconds": 0.5 } }"#, "watermarks[0].variants.seconds", "between 1 and 30"),
            (#"{ \#(Self.tiled), "variants": { "lecture": "" } }"#, "watermarks[0].variants.lecture", "empty"),
            (#"{ \#(Self.tiled), "variants": { "student": "{date}" } }"#, "watermarks[0].variants.student", "{date}"),
            (#"{ \#(Self.tiled), "variants": { "colluders": 3 } }"#, "watermarks[0].variants.colluders", "unknown field"),
            (#"{ "image": "logo.png", "variants": {} }"#, "watermarks[0].variants", "needs \"tile\""),
        ]
        for (layer, path, problem) in cases {
            let error = configError(#"{ "watermarks": [ \#(layer) ] }"#)
            #expect(error?.path == path && error?.problem.contains(problem) == true, "\(layer): \(String(describing: error))")
        }
        let two = configError(#"{ "watermarks": [ { \#(Self.tiled), "variants": {} }, { \#(Self.tiled), "variants": {} } ] }"#)
        #expect(two?.path == "watermarks[1].variants" && two?.problem.contains("one variant layer") == true, "\(String(describing: two))")
    }

    @Test func theStudentsPlaceholdersMustBeGiven() throws {
        let config = try parse(#"{ "watermarks": [ { \#(Self.tiled), "variants": { "student": "{email}" } } ] }"#)
        #expect(throws: ConfigError.self) { try config.checkVariables(["name": "A"]) }
        try config.checkVariables(["email": "a@b.c"])
    }

    @Test func lectureAndStudentNames() throws {
        let plain = try parse(#"{ "watermarks": [ { \#(Self.tiled), "variants": {} } ] }"#)
        #expect(plain.variantLecture(input: "/srv/lectures/week3.mp4") == "week3.mp4")
        #expect(plain.variantLecture(input: "https://cdn.example/v/week3.mp4?sig=1") == "week3.mp4")
        // Every variable, in name order, escaped so no two rows' lists read alike.
        #expect(plain.variantStudent(variables: ["name": "A\nb=c", "email": "a@b.c"]) == "email=a@b.c\nname=A\\nb=c")
        #expect(plain.variantStudent(variables: ["email": "a@b.c", "name": "A"]) != plain.variantStudent(variables: ["email": "a@b.c\nname=A"]))

        let named = try parse(#"{ "watermarks": [ { \#(Self.tiled), "variants": { "lecture": "cs101", "student": "{email}" } } ] }"#)
        #expect(named.variantLecture(input: "/x/y.mp4") == "cs101")
        #expect(named.variantStudent(variables: ["email": "a@b.c", "plan": "pro"]) == "a@b.c")

        let none = try parse(#"{ "watermarks": [ { \#(Self.tiled) } ] }"#)
        #expect(none.variantLecture(input: "a.mp4") == nil && none.variantStudent(variables: [:]) == nil)
    }

    // MARK: The codebook

    static let key = SecretKey(bytes: (0..<32).map { UInt8($0) })

    /// The derivation is keyed tracing's (`KeyedDerivation.bytes`): pinned, so swapping the interim
    /// construction for B's keeps every codeword. RFC 5869's construction by hand: PRK =
    /// HMAC(salt, key); OKM = HMAC(PRK, info ‖ 0x01) for the first 32 bytes.
    @Test func theDerivationIsKeyedTracingsConstruction() throws {
        let material = try KeyedDerivation(key: Self.key)
        let info = Array("variant code bias".utf8) + [0] + [0, 0, 0, 5] + Array("cs101".utf8)
        let prk = try HMACSHA256.authenticationCode(for: (0..<32).map { UInt8($0) }, key: Array("videowm keyed derivation v1".utf8))
        let expected = try HMACSHA256.authenticationCode(for: info + [1], key: prk)
        #expect(try material.bytes(purpose: "variant code bias", fields: [Array("cs101".utf8)], count: 32) == expected)
    }

    @Test func codewordsAreKeyedPerLectureAndStudent() throws {
        let book = try VariantCodebook(key: Self.key, lecture: "cs101", alphabetSize: 4)
        let biases = try book.biases(0..<300)
        #expect(biases.count == 300 && biases.allSatisfy { $0.alphabetSize == 4 })
        let alice = try book.codeword(student: "alice@example.edu", positions: 0..<300, biases: biases)
        #expect(alice.count == 300 && alice.allSatisfy { (0..<4).contains($0) })
        // The same inputs, the same code; any part changed, another.
        #expect(try book.codeword(student: "alice@example.edu", positions: 0..<300, biases: biases) == alice)
        #expect(try VariantCodebook(key: Self.key, lecture: "cs101", alphabetSize: 4).biases(0..<300) == biases)
        let bob = try book.codeword(student: "bob@example.edu", positions: 0..<300, biases: biases)
        #expect(zip(alice, bob).filter { $0 == $1 }.count < 150)
        let otherLecture = try VariantCodebook(key: Self.key, lecture: "cs102", alphabetSize: 4)
        #expect(try otherLecture.biases(0..<300) != biases)
        let otherKey = try VariantCodebook(key: SecretKey(bytes: [UInt8](repeating: 7, count: 32)), lecture: "cs101", alphabetSize: 4)
        #expect(try otherKey.biases(0..<300) != biases)
        #expect(try otherKey.codeword(student: "alice@example.edu", positions: 0..<300, biases: biases) != alice)
        // A range of positions is the same symbols as the whole (blocks of 1020 positions).
        let long = try book.biases(0..<2100)
        let whole = try book.codeword(student: "alice@example.edu", positions: 0..<2100, biases: long)
        #expect(try book.codeword(student: "alice@example.edu", positions: 1000..<1100, biases: Array(long[1000..<1100])) == Array(whole[1000..<1100]))
        // NFC: a precomposed é and e + combining accent are one student.
        #expect(try book.codeword(student: "ren\u{E9}@example.edu", positions: 0..<50, biases: Array(biases[0..<50]))
                == book.codeword(student: "rene\u{301}@example.edu", positions: 0..<50, biases: Array(biases[0..<50])))
    }

    /// The key-derived code does what the test generator's does: one student's minute names them.
    @Test func aKeyedCodeNamesItsLeaker() throws {
        let book = try VariantCodebook(key: Self.key, lecture: "cs101", alphabetSize: 4)
        let biases = try book.biases(0..<300)
        let codewords = try (0..<300).map { try book.codeword(student: "student\($0)@example.edu", positions: 0..<300, biases: biases) }
        let leak = (0..<300).map { $0 >= 100 && $0 < 130 ? VariantSet([codewords[77][$0]]) : .erased }
        let accusation = CollusionAccusation(biases: biases, observations: leak, rowCount: 300)
        #expect(accusation.accuse(codewords).filter { $0.isNamed() }.map(\.row) == [77])
    }
}
