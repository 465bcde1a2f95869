/// Reads a command's arguments with the options it declares (`ToolCommand.optionGroups`):
/// anything unknown or malformed is a usage error (exit 64) naming the option as typed.
/// Options and file arguments may come in any order; `--` ends the options, a lone `-` is a
/// file argument, and a long option may carry its value after `=` (`--crf=20`).
enum CommandParser {
    static func parse<Command: ToolCommand>(_ arguments: [String], into command: inout Command) throws {
        let options = optionsByName(Command.self)
        var remaining = arguments[...]
        var files: [String] = []
        var onlyFiles = false
        while let argument = remaining.popFirst() {
            if onlyFiles || argument == "-" || !argument.hasPrefix("-") {
                files.append(argument)
                continue
            }
            if argument == "--" { onlyFiles = true; continue }
            var spelling = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                spelling = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options[spelling] else { throw UsageError("unknown option \(spelling)", command: Command.name) }
            if !option.takesValue {
                guard inlineValue == nil else { throw UsageError("\(spelling) takes no value", command: Command.name) }
                try option.store(&command, "", spelling, Command.name)
                continue
            }
            guard let value = inlineValue ?? remaining.popFirst() else {
                throw UsageError("\(spelling) needs a value", command: Command.name)
            }
            try option.store(&command, value, spelling, Command.name)
        }
        try Command.files.store(files, into: &command, command: Command.name)
    }

    /// Every spelling of every option the command declares. Two options sharing a spelling is
    /// a mistake in the declarations, caught here and by the option tests.
    static func optionsByName<Command: ToolCommand>(_: Command.Type) -> [String: CommandOption<Command>] {
        var byName: [String: CommandOption<Command>] = [:]
        for option in Command.optionGroups.flatMap(\.options) {
            for name in option.names {
                precondition(byName[name] == nil, "\(Command.name) declares \(name) twice")
                byName[name] = option
            }
        }
        return byName
    }
}

/// A command's file arguments (the words that are not options).
struct FileArguments<Command> {
    /// How many the command takes; nil for any number (the command's `validate()` checks).
    let count: Int?
    /// What the error names when the count is wrong: "INPUT and OUTPUT".
    let described: String
    let set: (inout Command, [String]) -> Void

    /// Exactly `count` files, else "expects INPUT and OUTPUT, got 3 file argument(s)".
    static func exactly(_ count: Int, described: String, set: @escaping (inout Command, [String]) -> Void) -> Self {
        Self(count: count, described: described, set: set)
    }

    /// Any number of files, the count checked by the command.
    static func any(described: String, set: @escaping (inout Command, [String]) -> Void) -> Self {
        Self(count: nil, described: described, set: set)
    }

    func store(_ files: [String], into command: inout Command, command name: String) throws {
        if let count, files.count != count {
            throw UsageError("expects \(described), got \(files.count) file argument(s)", command: name)
        }
        set(&command, files)
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

/// Parsing helpers that name the option, as typed, in their errors.
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
    static func variable(_ text: String, option: String, command: String) throws -> (key: String, value: String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw UsageError("\(option) takes KEY=VALUE, got '\(text)'", command: command)
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }

    /// A bit rate such as 2500000, 2500k or 2.5M.
    static func bitRate(_ text: String, option: String, command: String) throws -> Int {
        let lower = text.lowercased()
        var multiplier = 1.0
        var digits = lower
        if lower.hasSuffix("k") { multiplier = 1e3; digits.removeLast() }
        else if lower.hasSuffix("m") { multiplier = 1e6; digits.removeLast() }
        guard let v = Double(digits), v > 0, v * multiplier <= 1e10 else {
            throw UsageError("\(option) must be like 2500k or 2.5M, got '\(text)'", command: command)
        }
        return Int(v * multiplier)
    }

    /// "a, b, c or d": the words an option takes, for its error message.
    static func alternatives(_ words: [String]) -> String {
        guard let last = words.last, words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + last
    }
}
