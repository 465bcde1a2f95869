import Foundation

/// A parsed JSON document. Decoded with `JSONDecoder`, which keeps `true` and `1` apart.
indirect enum JSONValue: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: Swift.Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }
}

/// A JSON value read with its path, so every complaint names the field
/// (`watermarks[1].opacity`) and unknown fields are caught instead of ignored.
struct JSONField {
    let value: JSONValue
    let path: String
    let file: String

    func fail(_ problem: String) -> ConfigError { ConfigError(file: file, path: path, problem: problem) }

    func object(allowedKeys: Set<String>) throws -> [String: JSONField] {
        guard case .object(let dict) = value else { throw fail("expected an object") }
        var result: [String: JSONField] = [:]
        for (key, value) in dict.sorted(by: { $0.key < $1.key }) {
            let childPath = path.isEmpty ? key : "\(path).\(key)"
            guard allowedKeys.contains(key) else {
                throw ConfigError(file: file, path: childPath, problem: "unknown field (known: \(allowedKeys.sorted().joined(separator: ", ")))")
            }
            result[key] = JSONField(value: value, path: childPath, file: file)
        }
        return result
    }

    func array() throws -> [JSONField] {
        guard case .array(let list) = value else { throw fail("expected an array") }
        return list.enumerated().map { JSONField(value: $1, path: "\(path)[\($0)]", file: file) }
    }

    func number() throws -> Double {
        guard case .number(let d) = value else { throw fail("expected a number") }
        guard d.isFinite else { throw fail("expected a finite number") }
        return d
    }

    func number(in range: ClosedRange<Double>) throws -> Double {
        let d = try number()
        guard range.contains(d) else { throw fail("must be between \(format(range.lowerBound)) and \(format(range.upperBound)), got \(format(d))") }
        return d
    }

    func bool() throws -> Bool {
        guard case .bool(let b) = value else { throw fail("expected true or false") }
        return b
    }

    func string() throws -> String {
        guard case .string(let s) = value else { throw fail("expected a string") }
        return s
    }

    func strings() throws -> [String] {
        try array().map { try $0.string() }
    }
}

func format(_ d: Double) -> String {
    d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
}
