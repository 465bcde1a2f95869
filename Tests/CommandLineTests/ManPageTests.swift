import Foundation
import Testing
@testable import videowm

/// docs/man is generated (`scripts/man-pages`, through `videowm help --man`) from the declarations
/// `--help` prints: these tests hold the committed pages to the generator, each page to its
/// command's options, and the pages to what `man` renders without a warning.
@Suite("man pages: generated, complete, rendered silently")
struct ManPageTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folder = root.appendingPathComponent("docs/man")

    @Test("the committed pages are the generator's output, and there is no other page")
    func committedPagesAreGenerated() throws {
        let committed = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).filter { !$0.hasPrefix(".") }
        #expect(Set(committed) == Set(ManPage.fileNames), "docs/man holds \(committed.sorted()); run scripts/man-pages")
        for file in ManPage.fileNames {
            let page = try #require(ManPage.page(named: file))
            let text = try? String(contentsOf: Self.folder.appendingPathComponent(file), encoding: .utf8)
            #expect(text == page, "docs/man/\(file) differs from 'videowm help --man \(file)': run scripts/man-pages")
        }
        #expect(ManPage.page(named: "videowm-no-such-command.1") == nil)
    }

    @Test("every page has the sections a man page has", arguments: ManPage.fileNames)
    func sections(file: String) throws {
        let page = try #require(ManPage.page(named: file))
        let options = file.hasSuffix(".5") ? "FIELDS" : "OPTIONS"
        for section in ["NAME", "SYNOPSIS", "DESCRIPTION", options, "EXIT STATUS", "EXAMPLES", "SEE ALSO"] {
            #expect(page.contains("\n.SH \(section)\n"), "\(file) has no \(section) section")
        }
    }

    @Test("a command's page names every option its help page names", arguments: OptionDeclarationTests.commandNames)
    func everyOptionIsOnThePage(name: String) throws {
        let page = Self.plain(try #require(ManPage.page(named: "videowm-\(name).1")))
        let help = try #require(Help.text(for: name))
        let onPage = Set(OptionDeclarationTests.optionSpellings(in: page))
        for spelling in OptionDeclarationTests.optionSpellings(in: help) {
            #expect(onPage.contains(spelling), "videowm-\(name).1 does not name \(spelling)")
        }
    }

    @Test("the config page names every field 'videowm help config' lists")
    func configPageNamesEveryField() throws {
        let page = Self.plain(try #require(ManPage.page(named: "videowm-config.5")))
        let reference = FieldReference(Help.config)
        #expect(reference.fields.count > 30)
        for field in reference.fields {
            #expect(page.contains("\n\(field.name)\n"), "videowm-config.5 has no entry \(field.name)")
        }
    }

    @Test("every example on a page is a command line its command parses")
    func examplesParse() throws {
        for command in CommandLineTool.commands {
            let manual = try #require(CommandManual.of(command.name), "\(command.name) has no CommandManual entry")
            #expect(!manual.examples.isEmpty)
            #expect(FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(manual.guide).path),
                    "videowm-\(command.name).1 refers to \(manual.guide), which does not exist")
            for example in manual.examples {
                for line in Self.commandLines(example.command) where line.first == "videowm" {
                    let parsed = try #require(CommandLineTool.command(named: line[1]), "\(line.joined(separator: " "))")
                    #expect(throws: Never.self, "\(line.joined(separator: " "))") { _ = try parsed.init(arguments: Array(line.dropFirst(2))) }
                }
            }
        }
    }

    @Test("man renders every page without a warning", arguments: ManPage.fileNames)
    func manRendersSilently(file: String) throws {
        let man = "/usr/bin/man"
        try #require(FileManager.default.isExecutableFile(atPath: man), "man-db is not installed: run scripts/setup")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: man)
        process.arguments = ["--warnings", "-l", Self.folder.appendingPathComponent(file).path]
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["LC_ALL"] = "C.UTF-8"
        process.environment = environment
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let rendered = output.fileHandleForReading.readDataToEndOfFile()
        let warnings = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(warnings.isEmpty, "man --warnings -l docs/man/\(file):\n\(warnings)")
        #expect(rendered.count > 1000)
    }

    // MARK: - Helpers

    /// A page's roff as the words it shows: escapes and font changes removed.
    static func plain(_ roff: String) -> String {
        roff.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\fB", with: "")
            .replacingOccurrences(of: "\\fI", with: "").replacingOccurrences(of: "\\fR", with: "")
            .replacingOccurrences(of: "\\&", with: "").replacingOccurrences(of: "\\e", with: "\\")
            .replacingOccurrences(of: ".TP\n", with: "")
    }

    /// The command lines of an example, continuation lines (" \") joined, split into words as
    /// a shell would for these (single and double quotes, no expansions).
    static func commandLines(_ text: String) -> [[String]] {
        text.replacingOccurrences(of: " \\\n", with: " ").split(separator: "\n").map { shellWords(String($0)) }
    }

    static func shellWords(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quote: Character?
        var inWord = false
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { word.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == " " {
                if inWord { words.append(word) }
                word = ""
                inWord = false
            } else {
                word.append(character)
                inWord = true
            }
        }
        if inWord { words.append(word) }
        return words
    }
}
