/// `--render smart` cannot be done for this input and output: the input's codec, a change the
/// options ask for, marks visible in every GOP, or a splice the encoder could not make fit.
/// The command line exits 64 with one line naming the reason.
public struct RenderError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The input the job reads.
    public var file: String
    /// Why, in a phrase ("a mark is visible in every GOP").
    public var reason: String

    /// Smart rendering refused for `file`.
    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): --render smart is impossible: \(reason)" }
}
