import Foundation
import VideoWM

/// The tokens a platform has revoked, from `--revocations FILE`: one entry a line, `jti ID`
/// (one token, by RFC 7519's token id) or `sub ID` (every token of a subject: a closed account,
/// a student caught leaking); blank lines and lines starting with `#` are ignored. IDs are
/// compared exactly as written (the rest of the line, without surrounding blanks).
public struct RevocationList: Sendable, Equatable {
    public private(set) var tokenIDs: Set<String> = []
    public private(set) var subjects: Set<String> = []

    public static let empty = RevocationList()

    public var count: Int { tokenIDs.count + subjects.count }

    public init() {}

    /// Whether the token's `jti` or `sub` is listed.
    public func revokes(_ token: AccessToken) -> Bool {
        (token.tokenID.map(tokenIDs.contains) ?? false) || (token.subject.map(subjects.contains) ?? false)
    }

    public init(parsing text: String, file: String) throws(RevocationListError) {
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let kind = line.prefix { !$0.isWhitespace }
            let id = line.dropFirst(kind.count).trimmingCharacters(in: .whitespaces)
            guard !id.isEmpty else { throw RevocationListError(file: file, line: index + 1, problem: "\"\(kind)\" names no id") }
            switch kind {
            case "jti": tokenIDs.insert(id)
            case "sub": subjects.insert(id)
            default: throw RevocationListError(file: file, line: index + 1, problem: "starts with \"\(kind)\"; a line is \"jti ID\" or \"sub ID\"")
            }
        }
    }

    /// Reads `path` (at most 64 MB); a missing file is an `InputError`.
    public static func read(fromFile path: String) throws -> RevocationList {
        guard FileManager.default.fileExists(atPath: path) else { throw InputError.missing(path) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw RevocationListError(file: path, line: nil, problem: "cannot be read") }
        defer { try? handle.close() }
        let limit = 64 << 20
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else { throw RevocationListError(file: path, line: nil, problem: "is larger than 64 MB") }
        return try RevocationList(parsing: String(decoding: data, as: UTF8.self), file: path)
    }
}

/// A revocations file that cannot be read or has a line that is not an entry (exit 64 at start;
/// on a re-read the list in force is kept).
public struct RevocationListError: Error, Sendable, CustomStringConvertible {
    public let file: String
    public let line: Int?
    public let problem: String
    public var description: String { "\(file)\(line.map { ", line \($0)" } ?? ""): \(problem)" }
}
