import Foundation
import VideoWM

/// The `videowm` command: picks the subcommand and is the one place where errors become
/// exit codes and a single line on stderr.
enum CommandLineTool {
    static let version = "0.1.0"

    /// Every command, in the order the overview lists them. A new command is one more line here.
    static var commands: [any ToolCommand.Type] {
        [TranscodeCommand.self, StampCommand.self, ThumbnailCommand.self, BatchCommand.self, PreviewCommand.self, ProbeCommand.self]
    }

    static func command(named name: String) -> (any ToolCommand.Type)? {
        commands.first { $0.name == name }
    }

    static func run(_ arguments: [String]) -> Int32 {
        Interruption.install()
        let console = Console.shared
        guard let first = arguments.first else {
            console.write(Help.overview)
            return ExitStatus.usage.rawValue
        }
        switch first {
        case "--version", "-V", "version":
            print("videowm \(version)")
            return 0
        case "help", "--help", "-h":
            if let topic = arguments.dropFirst().first {
                guard let text = Help.text(for: topic) else {
                    console.error("no help for '\(topic)'; commands: \(Help.commandNames.joined(separator: ", "))")
                    return ExitStatus.usage.rawValue
                }
                print(text, terminator: "")
            } else {
                print(Help.overview, terminator: "")
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
            print(Help.text(for: first) ?? Help.overview, terminator: "")
            return 0
        }
        do {
            var parsed = try command.init(arguments: rest)
            try parsed.validate()
            try parsed.run(console: console)
            return 0
        } catch let error as CommandFailures {
            return exitStatus(for: error).rawValue  // each failure has had its line
        } catch {
            console.error(errorLine(for: error))
            return exitStatus(for: error).rawValue
        }
    }
}
