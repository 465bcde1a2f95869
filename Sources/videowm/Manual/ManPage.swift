import VideoWM

/// The man pages of docs/man: videowm(1), one page per command (videowm-transcode(1), …) and
/// videowm-config(5), made from what `videowm help` prints — each command's usage, prose and
/// option declarations (`ToolCommand`), the exit statuses (`ExitStatus`) and the config's field
/// reference — plus the summaries and examples of `CommandManual`. `videowm help --man` lists
/// them and `videowm help --man FILE` prints one; scripts/man-pages writes them all, and
/// CommandLineTests holds the committed pages to this output.
enum ManPage {
    static let manual = "videowm manual"
    /// `videowm help --man [FILE]`.
    static let option = "--man"

    /// Every page's file name: the overview, the commands in the overview's order, the config.
    static var fileNames: [String] {
        ["videowm.1"] + ToolCommands.all.map { "videowm-\($0.name).1" } + ["videowm-config.5"]
    }

    /// The page in `file` (a name `fileNames` lists), or nil.
    static func page(named file: String) -> String? {
        switch file {
        case "videowm.1": return overview
        case "videowm-config.5": return config
        default:
            guard file.hasPrefix("videowm-"), file.hasSuffix(".1") else { return nil }
            let name = String(file.dropFirst("videowm-".count).dropLast(".1".count))
            return ToolCommands.named(name).map { page(for: $0) }
        }
    }

    private static var source: String { "videowm \(ToolCommands.version)" }

    // MARK: - A command's page

    static func page<Command: ToolCommand>(for _: Command.Type) -> String {
        let name = "videowm-\(Command.name)"
        guard let manual = CommandManual.of(Command.name) else {
            preconditionFailure("\(Command.name) has no entry in CommandManual")
        }
        var roff = Roff(title: name.uppercased(), section: 1, source: source, manual: Self.manual)
        roff.section("NAME")
        roff.request(Roff.escape("\(name) - \(manual.summary)"))
        roff.section("SYNOPSIS")
        synopsis(Command.help.usage, into: &roff)
        roff.section("DESCRIPTION")
        roff.paragraphs(Command.help.discussion)
        roff.section("OPTIONS")
        for group in Command.optionGroups where !group.options.isEmpty {
            roff.subsection(group.title)
            for option in group.options {
                roff.entry(label(names: option.names, value: option.valueName), option.help)
            }
        }
        exitStatus(intro: Command.help.epilogue, into: &roff)
        roff.section("EXAMPLES")
        for example in manual.examples { roff.example(example.what, example.command) }
        seeAlso(commands: manual.related, guide: manual.guide, into: &roff)
        return roff.text
    }

    /// The usage line(s), the command in bold and each line after the first on a line of its own.
    private static func synopsis(_ usage: String, into roff: inout Roff) {
        roff.request(".PP")
        let lines = usage.split(separator: "\n").map { $0.trimmingPrefix(while: { $0 == " " }) }
        for (index, line) in lines.enumerated() {
            if index > 0 { roff.request(".br") }
            let words = line.split(separator: " ", maxSplits: 2)
            if index == 0, words.count >= 2, words[0] == "videowm" {
                let rest = words.count > 2 ? " " + Roff.escape(String(words[2])) : ""
                roff.request(Roff.bold("videowm \(words[1])") + rest)
            } else {
                roff.request(Roff.escape(String(line)))
            }
        }
    }

    /// "\fB-c\fR, \fB--config\fR \fIFILE\fR".
    private static func label(names: [String], value: String?) -> String {
        names.map(Roff.bold).joined(separator: ", ") + (value.map { " " + Roff.italic($0) } ?? "")
    }

    /// The command's own words on its exit status, if any, then what every status means.
    private static func exitStatus(intro: String?, into roff: inout Roff) {
        roff.section("EXIT STATUS")
        if let intro { roff.paragraphs(intro) }
        roff.request(".PP")
        roff.request(Roff.escape("The statuses of every videowm command (BSD's sysexits):"))
        for status in ExitStatus.documented {
            roff.entry(Roff.bold("\(status.rawValue)"), status.meaning)
        }
    }

    private static func seeAlso(commands: [String], guide: String?, into roff: inout Roff) {
        roff.section("SEE ALSO")
        let pages = [Roff.reference("videowm", 1)] + commands.map { Roff.reference("videowm-\($0)", 1) }
            + [Roff.reference("videowm-config", 5)]
        roff.request(pages.joined(separator: ", "))
        roff.request(".PP")
        let guideLine = guide.map { "\($0) walks through the job from start to end; " } ?? ""
        roff.request(Roff.escape("In the source tree, \(guideLine)README.md indexes every guide and reference page."))
    }

    // MARK: - videowm(1)

    static var overview: String {
        var roff = Roff(title: "VIDEOWM", section: 1, source: source, manual: manual)
        roff.section("NAME")
        roff.request(Roff.escape("videowm - \(ToolManual.summary)"))
        roff.section("SYNOPSIS")
        for command in ToolCommands.all { synopsis(command.help.usage, into: &roff) }
        synopsis("videowm help [COMMAND] | videowm COMMAND --help | videowm --version", into: &roff)
        roff.section("DESCRIPTION")
        roff.paragraphs(ToolManual.description)
        roff.section("COMMANDS")
        for command in ToolCommands.all {
            roff.entry(Roff.reference("videowm-\(command.name)", 1), CommandManual.of(command.name)?.summary ?? "")
        }
        roff.section("OPTIONS")
        for option in ToolManual.globalOptions {
            let names = option.label.components(separatedBy: ", ")
            roff.entry(label(names: names, value: nil), option.help)
        }
        roff.section("ENVIRONMENT")
        for variable in ToolManual.environment {
            let names = variable.name.components(separatedBy: ", ")
            roff.entry(names.map(Roff.bold).joined(separator: ", "), variable.meaning)
        }
        exitStatus(intro: nil, into: &roff)
        roff.section("EXAMPLES")
        for example in ToolManual.examples { roff.example(example.what, example.command) }
        roff.section("SEE ALSO")
        roff.request((ToolCommands.all.map { Roff.reference("videowm-\($0.name)", 1) }
            + [Roff.reference("videowm-config", 5)]).joined(separator: ", "))
        roff.request(".PP")
        roff.request(Roff.escape("In the source tree, README.md indexes the guides (docs/guide) and the reference (docs/reference)."))
        return roff.text
    }

    // MARK: - videowm-config(5)

    static var config: String {
        var roff = Roff(title: "VIDEOWM-CONFIG", section: 5, source: source, manual: manual)
        roff.section("NAME")
        roff.request(Roff.escape("videowm-config - the watermark config file of videowm: layers of text and images"))
        roff.section("SYNOPSIS")
        roff.paragraphs("  " + ToolManual.configSynopsis)
        roff.section("DESCRIPTION")
        roff.paragraphs(ToolManual.configDescription)
        let reference = FieldReference(WatermarkConfig.fieldReference)
        roff.section("FIELDS")
        roff.paragraphs(reference.heading)
        for field in reference.fields { roff.entry(Roff.bold(field.name), field.text) }
        if !reference.notes.isEmpty { roff.paragraphs(reference.notes) }
        roff.section("EXIT STATUS")
        roff.paragraphs(ToolManual.configExitStatus)
        roff.section("EXAMPLES")
        roff.paragraphs(ToolManual.configExample.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        roff.section("SEE ALSO")
        roff.request((["videowm"] + ToolCommands.all.map { "videowm-\($0.name)" }).map { Roff.reference($0, 1) }
            .joined(separator: ", "))
        roff.request(".PP")
        roff.request(Roff.escape("In the source tree, docs/reference/config.md has every field with examples, text layout, animations, HDR and TPStreams configs."))
        return roff.text
    }
}

/// `videowm help config` read back into its entries: the page is made from the config's field
/// declarations (`LayerFields`, inside VideoWM), and this is the one public form of them. A field
/// starts two spaces in, a sub-field (`.width` of `outline`) four, and its text runs on in the
/// column the entries' texts start in.
struct FieldReference {
    var heading = ""
    var fields: [(name: String, text: String)] = []
    var notes = ""

    init(_ page: String) {
        let textColumn = 16
        for line in page.split(separator: "\n") {
            if line.hasPrefix(String(repeating: " ", count: textColumn)), !fields.isEmpty {
                fields[fields.count - 1].text += " " + line.trimmingPrefix(while: { $0 == " " })
            } else if line.hasPrefix("  ") {
                let trimmed = line.trimmingPrefix(while: { $0 == " " })
                let name = trimmed.prefix { $0 != " " }
                let parent = trimmed.hasPrefix(".") ? fields.last { !$0.name.contains(".") }?.name ?? "" : ""
                fields.append((parent + name, String(trimmed.dropFirst(name.count).trimmingPrefix(while: { $0 == " " }))))
            } else if fields.isEmpty {
                heading += line + "\n"
            } else {
                notes += line + "\n"
            }
        }
    }
}
