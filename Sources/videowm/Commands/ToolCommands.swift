/// The commands `videowm` has, and its version: what the dispatcher, `help` and the man pages
/// list. A new command is one more line here.
enum ToolCommands {
    /// In every served lecture's revision (`serve`), so a build whose pictures differ never serves
    /// a cache another made: 0.2.0 stopped drawing the variant layer in a row's own periods; 0.3.0
    /// is the backbone (a variant layer's ladder for one student, file copies in other containers).
    static let version = "0.3.0"

    /// Every command, in the order the overview lists them.
    static var all: [any ToolCommand.Type] {
        [TranscodeCommand.self, StampCommand.self, ThumbnailCommand.self, BatchCommand.self, PreviewCommand.self, TraceCommand.self,
         ProbeCommand.self, ServeCommand.self, KeygenCommand.self]
    }

    static func named(_ name: String) -> (any ToolCommand.Type)? {
        all.first { $0.name == name }
    }
}
