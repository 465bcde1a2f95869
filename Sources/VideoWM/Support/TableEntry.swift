import Foundation

/// An entry missing from a table the code filled itself (renditions by id, shared rows by
/// rendition, segments by index): a bug, reported as an error that names what was looked up
/// instead of stopping the process — a server keeps serving the other students, a batch
/// reports the row.
struct MissingTableEntry: Error, CustomStringConvertible {
    let what: String
    var description: String { "internal error: no \(what) was recorded (please report this)" }
}

extension Dictionary {
    /// The value stored under `key`, which the caller put there itself; `what` names it for the error if not.
    func entry(_ key: Key, _ what: @autoclosure () -> String) throws -> Value {
        guard let value = self[key] else { throw MissingTableEntry(what: what()) }
        return value
    }
}
