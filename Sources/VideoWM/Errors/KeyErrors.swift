/// A key file that must not be used: others on the machine may read (or replace) it, or it
/// is not a key `videowm keygen` wrote. The message names the file, never its bytes.
public struct KeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Why the key file is refused.
    public enum Problem: Equatable, Sendable {
        /// Group or other users have some access (`mode` holds the permission bits).
        case accessibleByOthers(mode: UInt32)
        /// The file holds `bytes` bytes, not a size in `expected` (32 for a key `videowm keygen` made).
        case wrongSize(bytes: Int, expected: ClosedRange<Int>)
    }

    /// The key file, by its path (never its bytes).
    public var file: String
    /// Why it is refused.
    public var problem: Problem

    /// A refused key file.
    public init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .accessibleByOthers(let mode):
            "\(file): key file is accessible by group or others (mode \(String(mode & 0o777, radix: 8))); "
                + "anyone who can read it can compute every student's mark path: run 'chmod 600 \(file)'"
        case .wrongSize(let bytes, let expected) where expected == 32...32:
            "\(file): not a key file (\(bytes) bytes; a key made by 'videowm keygen' is exactly 32)"
        case .wrongSize(let bytes, let expected):
            "\(file): not a usable key file (\(bytes) bytes; \(expected.lowerBound)…\(expected.upperBound) expected)"
        }
    }
}

/// A libcrypto call failed: in practice memory ran out, or the system's random source did not answer.
public struct CryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call ("EVP_MAC_update").
    public var operation: String
    /// libcrypto's reason, when it gave one.
    public var reason: String?

    /// libcrypto failed at `operation` (it fails only when memory or the random source gives out).
    public init(operation: String, reason: String? = nil) {
        self.operation = operation
        self.reason = reason
    }

    public var description: String { "\(operation) failed" + (reason.map { ": \($0)" } ?? "") }
}
