/// One option of a command, declared once: the parser reads arguments with it and the help
/// page lists it, so the two cannot disagree (swift-argument-parser's `@Option`, without
/// the dependency). `Options` is the struct the value is stored in: a command, or a group
/// of options several commands share (see `OptionGroup`).
struct CommandOption<Options> {
    /// Every spelling, short first: `["-c", "--config"]`.
    let names: [String]
    /// The value's placeholder in help (`FILE`), or nil for a flag, which takes no value.
    let valueName: String?
    /// One line of help, wrapped to the page's width when printed.
    var help: String
    /// A value the option accepts (nil for a flag), other than its default where it has one:
    /// the option tests parse every option with it and check that it changed something.
    let example: String?
    /// Checks the value and stores it. `spelling` is the name as typed, for messages.
    let store: (_ options: inout Options, _ value: String, _ spelling: String, _ command: String) throws -> Void

    var takesValue: Bool { valueName != nil }

    /// The same option stored in a part of a larger struct (a group inside a command).
    func lifted<Outer>(_ part: WritableKeyPath<Outer, Options>) -> CommandOption<Outer> {
        let store = self.store
        return CommandOption<Outer>(names: names, valueName: valueName, help: help, example: example) { outer, value, spelling, command in
            try store(&outer[keyPath: part], value, spelling, command)
        }
    }
}

// The kinds of option. Each parses its text, throws a `UsageError` naming the option as typed
// when the text is wrong, and hands the value to `set`.
extension CommandOption {
    /// An option without a value (`-y`).
    static func flag(_ names: String..., help: String, set: @escaping (inout Options) -> Void) -> Self {
        Self(names: names, valueName: nil, help: help, example: nil) { options, _, _, _ in set(&options) }
    }

    /// Any text but none, kept as given (`--report FILE`): an empty value (`-c ''`, an unset
    /// shell variable) is a usage error naming the option, not a file named "".
    static func text(_ names: String..., placeholder: String, help: String, example: String = "x",
                     set: @escaping (inout Options, String) -> Void) -> Self {
        Self(names: names, valueName: placeholder, help: help, example: example) { options, value, spelling, command in
            guard !value.isEmpty else { throw UsageError("\(spelling) needs a \(placeholder), got an empty value", command: command) }
            set(&options, value)
        }
    }

    /// A whole number inside `range` (`-j N`).
    static func integer(_ names: String..., placeholder: String = "N", range: ClosedRange<Int>, help: String,
                        set: @escaping (inout Options, Int) -> Void) -> Self {
        Self(names: names, valueName: placeholder, help: help, example: "\(range.upperBound)") { options, value, spelling, command in
            set(&options, try Parse.integer(value, option: spelling, command: command, range: range))
        }
    }

    /// A number of seconds, zero or more (`--at SECONDS`).
    static func seconds(_ names: String..., placeholder: String = "SECONDS", help: String,
                        set: @escaping (inout Options, Double) -> Void) -> Self {
        Self(names: names, valueName: placeholder, help: help, example: "1.5") { options, value, spelling, command in
            set(&options, try Parse.seconds(value, option: spelling, command: command))
        }
    }

    /// One of a fixed set of words (`--audio copy|aac|opus|none`); anything else is refused
    /// with the list, in `values`' order.
    static func choice<Value: RawRepresentable>(_ names: String..., placeholder: String = "MODE", among values: [Value],
                                                help: String, set: @escaping (inout Options, Value) -> Void) -> Self
    where Value.RawValue == String {
        let words = values.map(\.rawValue)
        return Self(names: names, valueName: placeholder, help: help, example: words.last) { options, value, spelling, command in
            guard let chosen = values.first(where: { $0.rawValue == value }) else {
                throw UsageError("\(spelling) takes \(Parse.alternatives(words)), got '\(value)'", command: command)
            }
            set(&options, chosen)
        }
    }

    /// A value with its own parser (`--bitrate 2500k`); `example` must be one it accepts.
    static func parsed<Value>(_ names: String..., placeholder: String, help: String, example: String,
                              parse: @escaping (_ text: String, _ spelling: String, _ command: String) throws -> Value,
                              set: @escaping (inout Options, Value) -> Void) -> Self {
        Self(names: names, valueName: placeholder, help: help, example: example) { options, value, spelling, command in
            set(&options, try parse(value, spelling, command))
        }
    }
}

/// Options declared together and shared by several commands ("Encode options" of transcode
/// and batch), listed under their own heading on each command's help page.
struct OptionGroup<Options> {
    /// The heading on help pages, e.g. "Encode options".
    let title: String
    var options: [CommandOption<Options>]

    init(_ title: String, _ options: [CommandOption<Options>]) {
        self.title = title
        self.options = options
    }

    /// The group as part of a command that keeps its values at `part`.
    func lifted<Outer>(_ part: WritableKeyPath<Outer, Options>) -> OptionGroup<Outer> {
        OptionGroup<Outer>(title, options.map { $0.lifted(part) })
    }

    /// The same group with one option's help reworded for a command where it means more
    /// (batch's `--var` is shared by every row). `name` must be one of the option's names.
    func helping(_ name: String, _ help: String) -> Self {
        guard let index = options.firstIndex(where: { $0.names.contains(name) }) else {
            preconditionFailure("no option \(name) in \(title)")
        }
        var copy = self
        copy.options[index].help = help
        return copy
    }
}
