import Foundation
import VideoWM

/// The `videowm` command: picks the subcommand and is the one place where errors become
/// exit codes and a single line on stderr.
enum CommandLineTool {
    static var version: String { ToolCommands.version }
    static var commands: [any ToolCommand.Type] { ToolCommands.all }

    static func command(named name: String) -> (any ToolCommand.Type)? { ToolCommands.named(name) }

    static func run(_ arguments: [String]) -> Int32 {
        // Before any file is opened or thread started: descriptors 0–2 exist (a closed one
        // would be handed to the first file opened), and the signal handlers are in place.
        StandardDescriptors.secure()
        Interruption.install()
        let console = Console.shared
        do {
            return try dispatch(arguments, console: console)
        } catch let error as CommandFailures {
            return exitStatus(for: error).rawValue  // each failure has had its line
        } catch {
            console.error(errorLine(for: error))
            return exitStatus(for: error).rawValue
        }
    }

    /// Runs the command `arguments` name; what it prints on stdout is the output the user
    /// asked for, so a stdout that refuses it is an error (74), as a full disk would be.
    private static func dispatch(_ arguments: [String], console: Console) throws -> Int32 {
        guard let first = arguments.first else {
            console.write(Help.overview)
            return ExitStatus.usage.rawValue
        }
        switch first {
        case "--version", "-V", "version":
            try StandardStream.output.write("videowm \(version)\n")
            return 0
        case "help", "--help", "-h":
            if arguments.dropFirst().first == ManPage.option { return try printManPage(arguments.dropFirst(2).first) }
            if let topic = arguments.dropFirst().first {
                guard let text = Help.text(for: topic) else {
                    console.error("no help for '\(topic)'; commands: \(Help.commandNames.joined(separator: ", "))")
                    return ExitStatus.usage.rawValue
                }
                try StandardStream.output.write(text)
            } else {
                try StandardStream.output.write(Help.overview)
            }
            return 0
        default:
            break
        }
        guard let command = command(named: first) else {
            console.error("unknown command '\(first)'; see 'videowm help'")
            return ExitStatus.usage.rawValue
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            try StandardStream.output.write(Help.text(for: first) ?? Help.overview)
            return 0
        }
        var parsed = try command.init(arguments: rest)
        try parsed.validate()
        try parsed.run(console: console)
        return 0
    }

    /// `videowm help --man FILE` prints a man page (scripts/man-pages writes docs/man with it);
    /// without FILE, the pages there are. Not in the overview: it is for the docs' generator.
    private static func printManPage(_ file: String?) throws -> Int32 {
        guard let file else {
            try StandardStream.output.write(ManPage.fileNames.joined(separator: "\n") + "\n")
            return 0
        }
        guard let page = ManPage.page(named: file) else {
            Console.shared.error("no man page '\(file)'; pages: \(ManPage.fileNames.joined(separator: ", "))")
            return ExitStatus.usage.rawValue
        }
        try StandardStream.output.write(page)
        return 0
    }
}
