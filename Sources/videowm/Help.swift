import VideoWM

/// The text of `videowm help`: the overview, each command's page (made from its declaration,
/// see `ToolCommand`) and the config fields.
enum Help {
    static var commandNames: [String] { CommandLineTool.commands.map { $0.name } }

    static var overview: String {
        let usage = CommandLineTool.commands.map { indented($0.help.usage) }
        return """
        videowm — burn visible watermarks (text and logos, still or moving) into video and stills

        Usage:
        \(usage.joined(separator: "\n"))
          videowm help [COMMAND] | videowm COMMAND --help | videowm --version

        Config: a JSON file with a "watermarks" array; every length is a fraction of the
        frame's short side, so one config looks the same on every frame size.
        Run 'videowm help config' for the fields. An image layer is a regular file or an
        http(s) URL fetched within VIDEOWM_FETCH_TIMEOUT seconds in all (default 60).

        \(exitCodes)

        """
    }

    /// "Exit codes: 0 ok · 1 …", wrapped as the overview's paragraphs are.
    static var exitCodes: String {
        let list = ExitStatus.documented.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: " · ")
        return HelpPage.wrap("Exit codes: \(list).", width: HelpPage.width - 2).joined(separator: "\n")
    }

    /// A command's page, or the config fields; nil for anything else.
    static func text(for topic: String) -> String? {
        if topic == "config" { return config }
        return CommandLineTool.command(named: topic)?.helpPage
    }

    /// Every line two spaces in, as the overview lists usages.
    private static func indented(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n")
    }

    /// Made from the config's field declarations, so it lists exactly what the parser takes.
    static var config: String { WatermarkConfig.fieldReference }
}
