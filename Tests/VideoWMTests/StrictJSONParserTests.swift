import Foundation
import Testing
@testable import VideoWM

/// The config's JSON reader: valid documents read as Foundation reads them, every fault
/// placed at its line and column, duplicate keys caught with their path.
@Suite("strict JSON reader")
struct StrictJSONParserTests {
    func parse(_ text: String) throws(StrictJSONParser.Failure) -> JSONValue {
        try StrictJSONParser.parse(Array(text.utf8))
    }

    func failure(_ bytes: [UInt8]) -> StrictJSONParser.Failure? {
        do {
            _ = try StrictJSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    func failure(_ text: String) -> StrictJSONParser.Failure? { failure(Array(text.utf8)) }

    /// A compact, order-independent rendering to compare trees.
    func render(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let d): "\(d)"
        case .string(let s): s.debugDescription
        case .array(let list): "[" + list.map(render).joined(separator: ",") + "]"
        case .object(let members): "{" + members.keys.sorted().map { "\($0.debugDescription):\(render(members[$0]!))" }.joined(separator: ",") + "}"
        }
    }

    @Test("valid documents read as Foundation's decoder reads them")
    func agreesWithFoundation() throws {
        let documents = [
            #"{ "watermarks": [ { "text": "a \"q\" \\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 é", "size": 0.04, "x": -1.5e2, "y": 0 } ] }"#,
            "[]", "{}", "0", "-0.0", "1E+2", "\"\"", "[true,false,null,[{}]]", "\u{FEFF}{\"a\":1}", " \r\n\t[1 , 2 ]\n",
            #"{"k": "日本語 العربية 👩‍💻"}"#,
        ]
        for text in documents {
            let ours = try parse(text)
            let bytes = Array(text.utf8)
            let withoutMark = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
            let theirs = try JSONDecoder().decode(JSONValue.self, from: Data(withoutMark))
            #expect(render(ours) == render(theirs), "\(text)")
        }
        // Numbers Foundation refuses as "found number" are still numbers: underflow is zero, long integers round.
        #expect(render(try parse("1e-400")) == "0.0")
        #expect(render(try parse("123456789012345678901234567890")) == "\(1.2345678901234568e29)")
    }

    @Test("faults are placed at their line and column", arguments: [
        ("{\n  \"a\": 1e400\n}", 2, 8, "out of range"),
        ("{\n  \"a\": [1, 2,]\n}", 2, 14, "where a value was expected"),
        ("{\"a\": 1}\n}x", 2, 1, "after the end"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("{\"a\": 01}", 1, 7, "start with 0"),
        ("{\"a\": -}", 1, 8, "digits"),
        ("{\"a\": 1.}", 1, 9, "decimal point"),
        ("{\"a\": \"x\ty\"}", 1, 9, "control character"),
        ("{\"a\": \"\\x\"}", 1, 8, "not a JSON escape"),
        ("{\"a\": \"\\ud800\"}", 1, 8, "surrogate"),
        ("{\"a\": \"\\u12\"}", 1, 8, "four hexadecimal digits"),
        ("{\"a\": tru}", 1, 7, "where a value was expected"),
        ("{\"é\": [\n  \"é\", x]}", 2, 8, "where a value was expected"),
        ("{\"a\": [1, 2", 1, 12, "']' is missing"),
        ("", 1, 1, "ends where a value"),
        ("{'a': 1}", 1, 2, "expected a key"),
    ])
    func faultPlaces(text: String, line: Int, column: Int, problem: String) {
        let found = failure(text)
        #expect(found?.kind == .syntax, "\(text)")
        #expect(found?.line == line && found?.column == column, "\(text): \(String(describing: found))")
        #expect(found?.problem.contains(problem) == true, "\(String(describing: found?.problem))")
        #expect(found?.description.hasPrefix("not valid JSON at line \(line), column \(column): ") == true)
    }

    @Test("bytes that are not UTF-8, and NUL bytes, are faults at their place")
    func invalidBytes() {
        let prefix = Array("{\n \"a\": \"ab".utf8)
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xC3], [0x00], [0x80]] {
            let found = failure(prefix + bad + Array("\"}".utf8))
            #expect(found?.line == 2 && found?.column == 10, "\(bad): \(String(describing: found))")
        }
    }

    @Test("a key given twice is an error naming its path", arguments: [
        ("{\"a\": 1, \"a\": 2}", "a"),
        ("{\"watermarks\": [{\"text\": \"x\"}, {\"text\": \"y\", \"box\": {\"padding\": 1, \"padding\": 2}}]}", "watermarks[1].box.padding"),
        ("{\"watermarks\": [], \"watermarks\": []}", "watermarks"),
    ])
    func duplicateKeys(text: String, path: String) {
        #expect(failure(text)?.kind == .duplicateKey(path: path), "\(text)")
    }

    @Test("nesting is bounded: a million '[' is a fault, not a crash")
    func deepNesting() {
        let found = failure([UInt8](repeating: UInt8(ascii: "["), count: 1_000_000))
        #expect(found?.problem.contains("nested deeper") == true, "\(String(describing: found))")
        #expect(found?.line == 1 && found?.column == StrictJSONParser.maximumDepth + 1)
        #expect(throws: Never.self) { try parse(String(repeating: "[", count: 64) + String(repeating: "]", count: 64)) }
    }
}
