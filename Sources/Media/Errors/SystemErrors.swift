/// The process ran out of something the system gives.
public struct ResourceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What ran out: memory, threads or file descriptors.
    public enum Resource: Sendable, Equatable { case memory, threads, fileDescriptors }

    /// What ran out.
    public var resource: Resource
    /// What was being done ("allocating a frame").
    public var operation: String

    /// `resource` ran out during `operation` ("allocating a frame").
    public init(_ resource: Resource, _ operation: String) {
        self.resource = resource
        self.operation = operation
    }

    /// Memory ran out during `operation`.
    public static func memory(_ operation: String) -> ResourceError { ResourceError(.memory, operation) }

    public var description: String {
        switch resource {
        case .memory: "out of memory \(operation)"
        case .threads: "cannot start a thread \(operation)"
        case .fileDescriptors: "too many open files \(operation) (see ulimit -n)"
        }
    }
}

/// The run was interrupted (SIGINT, SIGTERM, SIGHUP); temporary files are removed on the way out.
public struct InterruptedError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The run was interrupted.
    public init() {}
    public var description: String { "interrupted" }
}
