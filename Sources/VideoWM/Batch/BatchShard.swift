/// Which part of a batch one process takes when N processes split it: the rows whose
/// index (0 for the first row) is ≡ `index` mod `count`, so the parts never overlap and
/// together cover every row.
public struct BatchShard: Sendable, Equatable, CustomStringConvertible {
    /// Which shard this is, 0 for the first.
    public let index: Int
    /// How many shards the rows are split into.
    public let count: Int
    /// Where the shard came from, for the log: "--shard", "SLURM_ARRAY_TASK_ID", ….
    public let origin: String

    /// Every row: one shard of one.
    public static let whole = BatchShard(uncheckedIndex: 0, count: 1, origin: "default")

    /// Shard `index` of `count`; `origin` says where the numbers came from, for messages. A `RequestError` when they are out of range.
    public init(index: Int, count: Int, origin: String) throws {
        guard count >= 1, (0..<count).contains(index) else {
            throw RequestError(subject: origin, problem: "shard \(index)/\(count) does not exist (the index runs from 0 to the count minus 1)")
        }
        self.init(uncheckedIndex: index, count: count, origin: origin)
    }

    private init(uncheckedIndex index: Int, count: Int, origin: String) {
        self.index = index
        self.count = count
        self.origin = origin
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether the row at `rowIndex` (0 for the first) is this shard's.
    public func contains(rowIndex: Int) -> Bool { rowIndex % count == index }

    /// The most processes a batch can be split into (`--shard-count`'s limit too).
    public static let maximumCount = 1_000_000
    /// Slurm's largest array task ID (its MaxArraySize is at most 4000001).
    static let maximumSlurmValue = 4_000_000

    /// `--shard I/N`.
    public static func parse(_ text: String) throws -> BatchShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw RequestError(subject: "--shard", problem: "takes I/N such as 0/4, got '\(text)'")
        }
        guard (1...maximumCount).contains(count) else {
            throw RequestError(subject: "--shard", problem: "N must be from 1 to \(maximumCount), got \(count)")
        }
        return try BatchShard(index: index, count: count, origin: "--shard")
    }

    /// The shard a scheduler's array job gives this process, when no `--shard` is passed:
    /// a Slurm job array (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`, and `_MIN`/`_STEP`
    /// so `--array=1-8` or `0-14:2` work too), or a Kubernetes Indexed Job
    /// (`JOB_COMPLETION_INDEX`, whose count the pod does not see: `countOverride` from
    /// `--shard-count`, else `VIDEOWM_SHARD_COUNT`). Without any of these: the whole batch.
    ///
    /// Every value is range-checked before any arithmetic, so no value of a variable can
    /// overflow (a usage error names the variable instead).
    public static func fromEnvironment(_ environment: [String: String], countOverride: Int? = nil) throws -> BatchShard {
        func number(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw RequestError(subject: "\(name)='\(text)'", problem: "must be a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        let slurmValues = 0...maximumSlurmValue
        if let taskID = try number("SLURM_ARRAY_TASK_ID", in: slurmValues) {
            guard let count = try number("SLURM_ARRAY_TASK_COUNT", in: 1...maximumCount) else {
                throw RequestError(subject: nil, problem: "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard I/N")
            }
            let first = try number("SLURM_ARRAY_TASK_MIN", in: slurmValues) ?? 0
            let step = try number("SLURM_ARRAY_TASK_STEP", in: 1...maximumSlurmValue) ?? 1
            guard taskID >= first, (taskID - first) % step == 0 else {
                throw RequestError(subject: nil, problem: "SLURM_ARRAY_TASK_ID=\(taskID) is not on the array's range (min \(first), step \(step)); use --array=0-\(count - 1) or pass --shard I/N")
            }
            return try BatchShard(index: (taskID - first) / step, count: count, origin: "SLURM_ARRAY_TASK_ID")
        }
        if let completionIndex = try number("JOB_COMPLETION_INDEX", in: 0...maximumCount) {
            guard let count = try countOverride ?? number("VIDEOWM_SHARD_COUNT", in: 1...maximumCount) else {
                throw RequestError(subject: nil, problem: "JOB_COMPLETION_INDEX is set but the shard count is not: pass --shard-count N or set VIDEOWM_SHARD_COUNT to the Job's completions")
            }
            return try BatchShard(index: completionIndex, count: count, origin: "JOB_COMPLETION_INDEX")
        }
        if countOverride != nil {
            throw RequestError(subject: nil, problem: "--shard-count needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); elsewhere pass --shard I/N")
        }
        return .whole
    }
}
