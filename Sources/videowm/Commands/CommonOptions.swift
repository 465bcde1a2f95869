import Overlay
import VideoWM

/// Options shared by the commands that mark something: config, variables, output control.
struct MarkOptions {
    var configPath: String?
    var variables: [String: String] = [:]
    var overwrite = false
    var verbosity = Console.Verbosity.normal
    var progress = ProgressDisplay.Mode.auto

    /// Handles the shared options; returns false for anything else.
    mutating func handle(_ option: String, _ value: () throws -> String, command: String) throws -> Bool {
        switch option {
        case "-c", "--config": configPath = try value()
        case "--var":
            let (key, v) = try Parse.variable(try value(), command: command)
            variables[key] = v
        case "-y", "--overwrite": overwrite = true
        case "-q", "--quiet": verbosity = .quiet
        case "-v", "--verbose": verbosity = .verbose
        case "--progress":
            let text = try value()
            guard let mode = ProgressDisplay.Mode(rawValue: text) else {
                throw UsageError("--progress takes auto, bar, json or none, got '\(text)'", command: command)
            }
            progress = mode
        default: return false
        }
        return true
    }

    func requireConfig(command: String) throws -> String {
        guard let configPath else { throw UsageError("-c CONFIG is required", command: command) }
        return configPath
    }

    /// Loads the config and binds the variables: every config mistake surfaces here, before any output exists.
    func compositor(console: Console, command: String) throws -> Compositor {
        console.verbosity = verbosity
        VideoWMLibrary.configureLogging(verbose: verbosity == .verbose)
        let config = try WatermarkConfig.load(path: try requireConfig(command: command), warn: console.warningHandler)
        return try Compositor.forJob(config: config, variables: variables, warn: console.warningHandler)
    }
}

/// The encode options of transcode and batch.
struct EncodeOptions {
    var settings = EncodeSettings()
    var damagePolicy = DamagePolicy.warn

    mutating func handle(_ option: String, _ value: () throws -> String, command: String) throws -> Bool {
        switch option {
        case "--codec":
            let text = try value()
            guard let codec = EncodeSettings.VideoCodec(rawValue: text) else {
                throw UsageError("--codec takes h264, hevc, vp9 or av1, got '\(text)'", command: command)
            }
            settings.codec = codec
        case "--crf": settings.crf = try Parse.integer(try value(), option: option, command: command, range: 0...63)
        case "--preset":
            let text = try value()
            guard !text.isEmpty, text.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                throw UsageError("--preset takes a preset name such as veryfast, got '\(text)'", command: command)
            }
            settings.preset = text
        case "--bitrate": settings.bitRate = try Parse.bitRate(try value(), command: command)
        case "--audio":
            let text = try value()
            guard let mode = EncodeSettings.AudioMode(rawValue: text) else {
                throw UsageError("--audio takes copy, aac, opus or none, got '\(text)'", command: command)
            }
            settings.audio = mode
        case "--errors":
            let text = try value()
            guard let policy = DamagePolicy(rawValue: text) else {
                throw UsageError("--errors takes warn or fail, got '\(text)'", command: command)
            }
            damagePolicy = policy
        case "--threads": settings.threads = try Parse.integer(try value(), option: option, command: command, range: 0...64)
        default: return false
        }
        return true
    }
}
