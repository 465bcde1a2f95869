/// One subcommand, declared in swift-argument-parser's shape: its name, its help, the options
/// and file arguments it takes (from which both the parser and the help page are made), a
/// `validate()` for the options together, and `run`. Adding a command is one type conforming
/// to this and one line in `CommandLineTool.commands`.
protocol ToolCommand {
    static var name: String { get }
    static var help: CommandHelp { get }
    /// The options, by heading: the command's own first (titled "Options"), then the groups it
    /// shares with other commands (`MarkOptions.options.lifted(\.marks)`).
    static var optionGroups: [OptionGroup<Self>] { get }
    static var files: FileArguments<Self> { get }

    /// Every option at its default.
    init()
    /// Checks the options together (after parsing, before touching any file).
    mutating func validate() throws
    func run(console: Console) throws
}

extension ToolCommand {
    /// The command with `arguments` parsed into it; usage errors throw `UsageError`.
    init(arguments: [String]) throws {
        self.init()
        try CommandParser.parse(arguments, into: &self)
    }

    /// The page `videowm help NAME` and `videowm NAME --help` print.
    static var helpPage: String { HelpPage.render(Self.self) }
}

/// The hand-written parts of a command's help page; the option lists between them are
/// generated from the declarations.
struct CommandHelp {
    /// The synopsis, as in the overview (continuation lines indented under the command).
    let usage: String
    /// Paragraphs saying what the command does, before the options.
    let discussion: String
    /// Paragraphs after the options (batch's exit codes), if any.
    var epilogue: String? = nil
}

extension Optional {
    /// The value a command's `validate()` made sure of, in `run`: a usage error naming `option`
    /// should it be missing after all, never a crash.
    func required(_ option: String, command: String) throws -> Wrapped {
        guard let self else { throw UsageError("\(option) is required", command: command) }
        return self
    }
}
