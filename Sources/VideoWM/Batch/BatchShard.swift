/// Which part of a batch one process takes when N processes split it: the rows whose
/// index (0 for the first row) is ≡ `index` mod `count`, so the parts never overlap and
/// together cover every row.
public struct BatchShard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int
    /// Where the shard came from, for the log: "--shard", "SLURM_ARRAY_TASK_ID", ….
    public let origin: String

    public static let whole = BatchShard(uncheckedIndex: 0, count: 1, origin: "default")

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

    public func contains(rowIndex: Int) -> Bool { rowIndex % count == index }

    /// `--shard I/N`.
    public static func parse(_ text: String) throws -> BatchShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw RequestError(subject: nil, problem: "--shard takes I/N such as 0/4, got '\(text)'")
        }
        return try BatchShard(index: index, count: count, origin: "--shard")
    }

    /// The shard a scheduler's array job gives this process, when no `--shard` is passed:
    /// a Slurm job array (`SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`, and `_MIN`/`_STEP`
    /// so `--array=1-8` or `0-14:2` work too), or a Kubernetes Indexed Job
    /// (`JOB_COMPLETION_INDEX`, whose count the pod does not see: `countOverride` from
    /// `--shard-count`, else `VIDEOWM_SHARD_COUNT`). Without any of these: the whole batch.
    public static func fromEnvironment(_ environment: [String: String], countOverride: Int? = nil) throws -> BatchShard {
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name], !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw RequestError(subject: "\(name)='\(text)'", problem: "is not a whole number") }
            return value
        }
        if let taskID = try number("SLURM_ARRAY_TASK_ID") {
            guard let count = try number("SLURM_ARRAY_TASK_COUNT") else {
                throw RequestError(subject: nil, problem: "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; pass --shard I/N")
            }
            let first = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
            guard (taskID - first) % step == 0 else {
                throw RequestError(subject: nil, problem: "SLURM_ARRAY_TASK_ID=\(taskID) is not on the array's range (min \(first), step \(step)); use --array=0-\(count - 1) or pass --shard I/N")
            }
            return try BatchShard(index: (taskID - first) / step, count: count, origin: "SLURM_ARRAY_TASK_ID")
        }
        if let completionIndex = try number("JOB_COMPLETION_INDEX") {
            guard let count = try countOverride ?? number("VIDEOWM_SHARD_COUNT") else {
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
