/// Bytes that are not the ISO BMFF structure the packager expects (`.malformed`: damaged or foreign input), or a
/// structure it recognises but does not handle (`.unsupported`: a codec or layout it cannot encrypt).
///
/// The exit-code funnel maps `.malformed` to 65 (bad input data) and `.unsupported` to 64 (the request cannot be
/// carried out for this input); the message names where in the file the problem lies.
public struct MP4StructureError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: Equatable, Sendable {
        case malformed
        case unsupported
    }

    public var kind: Kind
    /// Where: a box path such as `moof/traf[2]/trun`, or `sample 14 of track 1`.
    public var location: String
    public var detail: String
    /// The file the bytes came from, once a caller names it (`naming(file:)`).
    public var file: String?

    public init(_ kind: Kind, at location: String, _ detail: String, file: String? = nil) {
        self.kind = kind
        self.location = location
        self.detail = detail
        self.file = file
    }

    static func malformed(_ location: String, _ detail: String) -> MP4StructureError { MP4StructureError(.malformed, at: location, detail) }
    static func unsupported(_ location: String, _ detail: String) -> MP4StructureError { MP4StructureError(.unsupported, at: location, detail) }

    /// The same error naming the file the bytes were read from.
    public func naming(file: String) -> MP4StructureError {
        var named = self
        named.file = file
        return named
    }

    public var description: String {
        (file.map { "\($0): " } ?? "") + "\(location): \(detail)"
    }
}

/// A libcrypto call failed: in practice memory ran out (the funnel maps it to 71, as `CryptoError`).
public struct PackagingCryptoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call ("EVP_EncryptUpdate (AES-128-CTR)").
    public var operation: String

    public init(operation: String) { self.operation = operation }

    public var description: String { "\(operation) failed" }
}

/// A content key file that cannot be used, in one line naming the file and never a key's bytes.
///
/// Exit codes as the token key's file gets them: `.missing`, `.unreadable`, `.notARegularFile` 66 (input missing);
/// `.accessibleByOthers` 64 (refused, not warned about: a content key readable by other users on the machine is a
/// published key); `.malformed` and `.unusable` 65 (the file's content is bad input data).
public struct ContentKeyFileError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Problem: Equatable, Sendable {
        case missing
        /// open(2) or read(2) failed with this errno.
        case unreadable(errno: Int32)
        case notARegularFile
        /// Group or other users have some access (`mode` holds the permission bits).
        case accessibleByOthers(mode: UInt32)
        /// The content is not a `KID:KEY` line or a CPIX document; the text says where and why.
        case malformed(String)
        /// A well-formed document this packager cannot use (encrypted keys in a CPIX document, no key at all).
        case unusable(String)
    }

    public var file: String
    public var problem: Problem

    public init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    public var description: String {
        switch problem {
        case .missing:
            "\(file): content key file not found"
        case .unreadable(let code):
            "\(file): cannot read the content key file (errno \(code))"
        case .notARegularFile:
            "\(file): the content key file is not a regular file"
        case .accessibleByOthers(let mode):
            "\(file): content key file is accessible by group or others (mode \(String(mode & 0o777, radix: 8))); "
                + "anyone who can read it can decrypt every copy: run 'chmod 600 \(file)'"
        case .malformed(let detail):
            "\(file): not a content key file: \(detail)"
        case .unusable(let detail):
            "\(file): \(detail)"
        }
    }
}
