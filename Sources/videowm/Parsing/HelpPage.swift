/// Renders a command's help page: its usage line and prose, then every option it declares,
/// grouped under their headings and wrapped to the page's width.
enum HelpPage {
    /// The width help text is wrapped to, as the hand-written paragraphs are.
    static let width = 88
    /// Help starts in this column at least, so pages line up with each other,
    static let narrowestColumn = 24
    /// and at most in this one: longer labels get their help on the next line.
    static let widestColumn = 28

    static func render<Command: ToolCommand>(_: Command.Type) -> String {
        let help = Command.help
        var page = help.usage + "\n\n" + help.discussion + "\n"
        let groups = Command.optionGroups.filter { !$0.options.isEmpty }
        let labels = groups.flatMap { $0.options.map { label($0) } }
        let column = min(max(2 + (labels.map(\.count).max() ?? 0) + 2, narrowestColumn), widestColumn)
        for group in groups {
            page += "\n\(group.title):\n"
            for option in group.options {
                page += entry(label: label(option), help: option.help, column: column)
            }
        }
        if let epilogue = help.epilogue { page += "\n" + epilogue + "\n" }
        return page + "\n"
    }

    /// "-c, --config FILE": the option's spellings and its value's placeholder.
    static func label<Options>(_ option: CommandOption<Options>) -> String {
        option.names.joined(separator: ", ") + (option.valueName.map { " " + $0 } ?? "")
    }

    /// One option: its label indented by two, its help from `column` on, wrapped.
    private static func entry(label: String, help: String, column: Int) -> String {
        let indent = String(repeating: " ", count: column)
        let lines = wrap(help, width: width - column)
        var text = "  " + label
        if text.count + 2 > column {
            text += "\n" + indent
        } else {
            text += String(repeating: " ", count: column - text.count)
        }
        return text + lines.joined(separator: "\n" + indent) + "\n"
    }

    /// Greedy word wrap; a word longer than `width` gets a line of its own.
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        return lines
    }
}
