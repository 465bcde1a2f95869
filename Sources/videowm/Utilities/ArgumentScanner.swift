import VideoWM

/// A small argument reader in swift-argument-parser's spirit: commands declare the options
/// they take; anything unknown or malformed is a usage error (exit 64) naming the option.
struct ArgumentScanner {
    private var remaining: [String]
    private(set) var positionals: [String] = []
    let command: String

    init(_ arguments: [String], command: String) {
        remaining = arguments
        self.command = command
    }

    /// The file arguments, which must be exactly as many as `expected` describes ("INPUT and
    /// OUTPUT" for two); otherwise a usage error saying what was expected and what came.
    func files(_ count: Int, described expected: String) throws -> [String] {
        guard positionals.count == count else {
            throw UsageError("expects \(expected), got \(positionals.count) file argument(s)", command: command)
        }
        return positionals
    }

    /// Walks the arguments, giving each option to `handle`, which returns whether it knew it.
    /// `handle` reads an option's value through `value()`.
    mutating func scan(_ handle: (_ option: String, _ value: () throws -> String) throws -> Bool) throws {
        var onlyPositionals = false
        while !remaining.isEmpty {
            var arg = remaining.removeFirst()
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var inlineValue: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                inlineValue = String(arg[arg.index(after: eq)...])
                arg = String(arg[..<eq])
            }
            let option = arg
            var consumed = false
            let known = try handle(option) {
                consumed = true
                if let inlineValue { return inlineValue }
                guard !remaining.isEmpty else { throw UsageError("\(option) needs a value", command: command) }
                return remaining.removeFirst()
            }
            guard known else { throw UsageError("unknown option \(option)", command: command) }
            if inlineValue != nil && !consumed { throw UsageError("\(option) takes no value", command: command) }
        }
    }
}

/// A command-line mistake: printed with a pointer to the command's help, exit 64.
struct UsageError: Error {
    var message: String
    var command: String
    init(_ message: String, command: String) {
        self.message = message
        self.command = command
    }
}

/// Parsing helpers that name the option in their errors.
enum Parse {
    static func integer(_ text: String, option: String, command: String, range: ClosedRange<Int>) throws -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw UsageError("\(option) must be a whole number between \(range.lowerBound) and \(range.upperBound), got '\(text)'", command: command)
        }
        return n
    }

    static func seconds(_ text: String, option: String, command: String) throws -> Double {
        guard let d = Double(text), d.isFinite, d >= 0 else {
            throw UsageError("\(option) must be a number of seconds ≥ 0, got '\(text)'", command: command)
        }
        return d
    }

    /// `KEY=VALUE`; the value may contain '=' and anything else, and is kept verbatim.
    static func variable(_ text: String, command: String) throws -> (String, String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw UsageError("--var takes KEY=VALUE, got '\(text)'", command: command)
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }

    /// A bit rate such as 2500000, 2500k or 2.5M.
    static func bitRate(_ text: String, command: String) throws -> Int {
        let lower = text.lowercased()
        var multiplier = 1.0
        var digits = lower
        if lower.hasSuffix("k") { multiplier = 1e3; digits.removeLast() }
        else if lower.hasSuffix("m") { multiplier = 1e6; digits.removeLast() }
        guard let v = Double(digits), v > 0, v * multiplier <= 1e10 else {
            throw UsageError("--bitrate must be like 2500k or 2.5M, got '\(text)'", command: command)
        }
        return Int(v * multiplier)
    }
}
