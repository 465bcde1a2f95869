import Foundation
import Testing
@testable import videowm

/// Each command's parser and its help page are both made from its option declarations;
/// these tests hold the two (and the command lines of README, the guides and the reference) to
/// each other, for every command.
@Suite("Options: every documented option parses, every parsed option is documented")
struct OptionDeclarationTests {
    static let commandNames = CommandLineTool.commands.map { $0.name }

    @Test("every declared spelling is on the help page and parses with an example value that changes the command",
          arguments: commandNames)
    func declaredOptionsParseAndAreDocumented(name: String) throws {
        guard let command = CommandLineTool.command(named: name) else { Issue.record("no command \(name)"); return }
        try checkDeclaredOptions(command)
    }

    @Test("every option the help page names is one the command parses", arguments: commandNames)
    func documentedOptionsParse(name: String) throws {
        guard let command = CommandLineTool.command(named: name) else { Issue.record("no command \(name)"); return }
        let page = try #require(Help.text(for: name))
        let mentioned = Self.optionSpellings(in: page)
        #expect(!mentioned.isEmpty)
        for spelling in mentioned {
            #expect(Self.parses(spelling, command), "'videowm help \(name)' names \(spelling), which \(name) does not take")
        }
    }

    @Test("every option on a documented command line (README, guides, reference) is one that command parses")
    func documentedCommandLinesParse() throws {
        var commandsSeen = Set<String>()
        for page in DocumentationTests.pages where !page.hasPrefix("docs/design/") {
            let text = try String(contentsOf: DocumentationTests.root.appendingPathComponent(page), encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard words.count > 1, words[0] == "videowm", let command = CommandLineTool.command(named: String(words[1])) else { continue }
                for spelling in Self.optionSpellings(in: String(line)) {
                    #expect(Self.parses(spelling, command), "\(page): '\(line)': \(words[1]) does not take \(spelling)")
                }
                commandsSeen.insert(command.name)
            }
        }
        let missing = Set(Self.commandNames).subtracting(commandsSeen).sorted()
        #expect(missing.isEmpty, "no command line in README or docs/guide, docs/reference shows \(missing)")
    }

    @Test("the overview lists every command's usage, and each command has a page")
    func overviewListsEveryCommand() throws {
        for command in CommandLineTool.commands {
            #expect(Help.overview.contains(command.help.usage.split(separator: "\n")[0]))
            #expect(Help.text(for: command.name) == command.helpPage)
        }
        #expect(Help.text(for: "config") != nil)
        #expect(Help.text(for: "no-such-command") == nil)
    }

    // The checks above pass only because the parser refuses what it was not told about.
    @Test("undeclared options, missing values and values for flags are usage errors naming the option")
    func parserRefusesWhatIsNotDeclared() {
        func message(_ arguments: [String]) -> String? {
            do { _ = try TranscodeCommand(arguments: arguments); return nil } catch let error as UsageError { return error.message } catch { return "\(error)" }
        }
        #expect(message(["in.mp4", "out.mp4", "--no-such-option"]) == "unknown option --no-such-option")
        #expect(message(["in.mp4", "out.mp4", "--no-such-option=1"]) == "unknown option --no-such-option")
        #expect(message(["in.mp4", "out.mp4", "--crf"]) == "--crf needs a value")
        #expect(message(["in.mp4", "out.mp4", "-y=1"]) == "unknown option -y=1")
        #expect(message(["in.mp4", "out.mp4", "--overwrite=yes"]) == "--overwrite takes no value")
        #expect(message(["in.mp4", "out.mp4", "--codec", "mpeg2"]) == "--codec takes h264, hevc, vp9 or av1, got 'mpeg2'")
        #expect(message(["in.mp4", "--crf=20"]) == "expects INPUT and OUTPUT, got 1 file argument(s)")
        #expect(message(["in.mp4", "--", "-out.mp4"]) == nil)
        #expect(message(["-", "out.mp4", "--crf=20", "--progress", "none"]) == nil)
    }

    @Test("help text wraps at word boundaries within the width")
    func wrapping() {
        #expect(HelpPage.wrap("aa bb cc", width: 5) == ["aa bb", "cc"])
        #expect(HelpPage.wrap("a-long-word b", width: 4) == ["a-long-word", "b"])
        #expect(HelpPage.wrap("", width: 4) == [""])
    }

    // MARK: - Helpers

    private func checkDeclaredOptions<Command: ToolCommand>(_: Command.Type) throws {
        let options = Command.optionGroups.flatMap(\.options)
        let spellings = options.flatMap(\.names)
        let repeated = Dictionary(grouping: spellings, by: { $0 }).filter { $1.count > 1 }.keys.sorted()
        try #require(repeated.isEmpty, "\(Command.name) declares \(repeated) more than once")

        let documented = Set(Self.optionSpellings(in: Command.helpPage))
        let files = Self.exampleFiles(Command.self)
        let unchanged = "\(try Command(arguments: files))"
        for option in options {
            #expect(option.takesValue == (option.example != nil), "\(option.names): a value option needs an example")
            for spelling in option.names {
                #expect(documented.contains(spelling), "\(Command.name) parses \(spelling) but its help page does not name it")
                let arguments = files + [spelling] + (option.example.map { [$0] } ?? [])
                let parsed = try Command(arguments: arguments)
                let changed = "\(parsed)" != unchanged
                #expect(changed, "\(Command.name) \(arguments.joined(separator: " ")) changed nothing")
                if spelling.hasPrefix("--"), let example = option.example {
                    let inline = try Command(arguments: files + ["\(spelling)=\(example)"])
                    let same = "\(inline)" == "\(parsed)"
                    #expect(same, "\(Command.name) \(spelling)=\(example) differs from \(spelling) \(example)")
                }
            }
        }
    }

    private static func exampleFiles<Command: ToolCommand>(_: Command.Type) -> [String] {
        (0..<(Command.files.count ?? 1)).map { "file\($0)" }
    }

    /// Whether `command` takes `spelling` (parsing it with its declared example value).
    private static func parses(_ spelling: String, _ command: any ToolCommand.Type) -> Bool {
        parses(spelling, as: command)
    }

    private static func parses<Command: ToolCommand>(_ spelling: String, as _: Command.Type) -> Bool {
        CommandParser.optionsByName(Command.self)[spelling] != nil
    }

    /// The words of `text` that look like options: a '-' or '--' not inside a word, then a letter
    /// ("re-encoded" and "'-'" are not options; "--output=x" is "--output").
    static func optionSpellings(in text: String) -> [String] {
        var found: [String] = []
        let characters = Array(text)
        var i = 0
        while i < characters.count {
            let previous = i > 0 ? characters[i - 1] : " "
            guard characters[i] == "-", !previous.isLetter, !previous.isNumber, previous != "-" else { i += 1; continue }
            var j = i
            while j < characters.count, characters[j] == "-", j - i < 2 { j += 1 }
            guard j < characters.count, characters[j].isLetter else { i = j; continue }
            while j < characters.count, characters[j].isLetter || characters[j].isNumber || characters[j] == "-" { j += 1 }
            found.append(String(characters[i..<j]))
            i = j
        }
        return found
    }
}
