import Foundation

/// A value behind a lock, for results gathered from concurrent threads. An NSLock (a pthread
/// mutex), not Synchronization's Mutex: on Linux that Mutex waits on a futex, whose ordering
/// ThreadSanitizer does not see, and the sanitizer stage reported its guarded accesses as races.
public final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    public init(_ value: Value) { self.value = value }
    public func withLock<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
