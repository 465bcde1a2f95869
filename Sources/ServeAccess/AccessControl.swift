import Foundation
import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// Who may watch, as a running server knows it: the token keys, the leeway and the revoked
/// tokens, each replaced whole while requests are checked against them. The key file is re-read
/// on request (SIGHUP); the revocations file on request and whenever it changes (the server
/// asks every second). A file that no longer reads keeps what is in force: a half-written key
/// file must not lock every student out, nor a broken revocations file let revoked ones back in.
public final class AccessControl: @unchecked Sendable {
    /// A token that passed, and the student's name in their URLs.
    public struct Admission: Sendable {
        public let access: AccessToken
        public let student: String
    }

    /// What a re-read did, for the server's log (nil: nothing to say).
    public enum Reload: Sendable, Equatable {
        case unchanged
        case reloaded(String)
        case kept(String)

        public var logLine: String? {
            switch self {
            case .unchanged: nil
            case .reloaded(let text), .kept(let text): text
            }
        }
    }

    private let lock = NSLock()
    private var verifier: TokenVerifier
    private var revocations: RevocationList
    private var revocationsStamp: FileStamp?
    private let revocationsFile: String?
    /// Names keyed by a key of their own (derived from the marks' key), or nil: by the key that
    /// signed the token.
    private let names: StudentNames?

    public init(keys: TokenKeySet, leewaySeconds: Double = TokenVerifier.defaultLeewaySeconds, revocationsFile: String? = nil,
                studentNames: StudentNames? = nil) throws {
        verifier = TokenVerifier(keys: keys, leewaySeconds: leewaySeconds)
        self.revocationsFile = revocationsFile
        names = studentNames
        revocationsStamp = revocationsFile.flatMap(FileStamp.init(path:))
        revocations = try revocationsFile.map(RevocationList.read(fromFile:)) ?? .empty
    }

    public var keyIDs: [String] { lock.withLock { verifier.keys.ids } }
    public var revocationCount: Int { lock.withLock { revocations.count } }

    /// Checks `token` for `lecture`: signature, validity, revocation; then names the student.
    public func admit(_ token: String, to lecture: String, now: Double = Date().timeIntervalSince1970) -> Result<Admission, TokenRejection> {
        let (verifier, revocations) = lock.withLock { (self.verifier, self.revocations) }
        switch verifier.verify(token, for: lecture, now: now) {
        case .failure(let rejection):
            return .failure(rejection)
        case .success(let (access, key)):
            guard !revocations.revokes(access) else { return .failure(.revoked) }
            guard let student = (names ?? StudentNames(key: key)).name(for: access.variables) else { return .failure(.noMemory) }
            return .success(Admission(access: access, student: student))
        }
    }

    /// Re-reads the key file (SIGHUP).
    public func reloadKeys() -> Reload {
        let current = lock.withLock { verifier }
        let file = current.keys.file
        do {
            let keys = try TokenKeySet.read(fromFile: file, expecting: current.keys.format)
            lock.withLock { verifier = TokenVerifier(keys: keys, leewaySeconds: current.leewaySeconds) }
            return .reloaded("token keys reloaded from \(file): \(keys.ids.joined(separator: ", "))")
        } catch {
            return .kept("token keys not reloaded, the \(current.keys.keys.count) in use kept: \(error)")
        }
    }

    /// Re-reads the revocations file: always (`force`, SIGHUP), or when it changed since it was last read.
    public func reloadRevocations(force: Bool) -> Reload {
        guard let file = revocationsFile else { return .unchanged }
        let stamp = FileStamp(path: file)
        guard force || stamp != lock.withLock({ revocationsStamp }) else { return .unchanged }
        lock.withLock { revocationsStamp = stamp }
        do {
            let list = try RevocationList.read(fromFile: file)
            lock.withLock { revocations = list }
            return .reloaded("revocations reloaded from \(file): \(list.tokenIDs.count) token ids, \(list.subjects.count) subjects")
        } catch {
            return .kept("revocations not reloaded, the \(revocationCount) in force kept: \(error)")
        }
    }
}

/// What tells that a file changed without reading it: its identity, size and times (a file
/// replaced by rename has a new inode; one written in place a new size or modification time).
struct FileStamp: Equatable, Sendable {
    let fields: [Int64]

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        fields = [Int64(info.st_dev), Int64(info.st_ino), Int64(info.st_size), Int64(info.st_mtim.tv_sec), Int64(info.st_mtim.tv_nsec),
                  Int64(info.st_ctim.tv_sec), Int64(info.st_ctim.tv_nsec)]
    }
}
