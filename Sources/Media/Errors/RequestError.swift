/// A job that cannot be done as asked: an option's value (`--at` past the end, a `--shard`
/// that does not exist, an `--output` template), or an output name whose format is unknown.
public struct RequestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the mistake is in: an option ("--shard"), a variable, a file name; nil when the
    /// problem says it all.
    public var subject: String?
    public var problem: String

    public init(subject: String?, problem: String) {
        self.subject = subject
        self.problem = problem
    }

    public var description: String { subject.map { "\($0): \(problem)" } ?? problem }
}
