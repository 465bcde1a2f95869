#if canImport(Glibc)
import Glibc
#endif

/// One DRM system's own signalling for one key, as a CPIX document's `DRMSystem` element hands it over: copied into
/// the initialization segment (`pssh`), the MPD (`ContentProtection` children) and HLS playlists (`EXT-X-KEY`) as is.
public struct DRMSystemSignaling: Equatable, Sendable {
    public var systemID: SystemID
    public var keyID: KeyID
    public var pssh: ProtectionSystemHeader?
    /// XML elements to put inside the system's MPD `ContentProtection` element (CPIX `ContentProtectionData`).
    public var contentProtectionData: String?
    /// The `EXT-X-KEY` line(s) for media playlists (CPIX `HLSSignalingData playlist="media"`).
    public var hlsMediaPlaylistData: String?
    /// The `EXT-X-SESSION-KEY` line(s) for multivariant playlists (`playlist="master"`).
    public var hlsMultivariantPlaylistData: String?
    /// The URI for an `EXT-X-KEY` the packager writes itself (CPIX `URIExtXKey`).
    public var uriExtXKey: String?

    public init(systemID: SystemID, keyID: KeyID, pssh: ProtectionSystemHeader? = nil, contentProtectionData: String? = nil,
                hlsMediaPlaylistData: String? = nil, hlsMultivariantPlaylistData: String? = nil, uriExtXKey: String? = nil) {
        self.systemID = systemID
        self.keyID = keyID
        self.pssh = pssh
        self.contentProtectionData = contentProtectionData
        self.hlsMediaPlaylistData = hlsMediaPlaylistData
        self.hlsMultivariantPlaylistData = hlsMultivariantPlaylistData
        self.uriExtXKey = uriExtXKey
    }
}

/// The content keys of a `--content-key-file`: one line `KID:KEY` (32 hex digits each), or a DASH-IF CPIX document
/// (its content keys in the clear, its DRM systems' signalling and its usage rules).
public struct ContentKeySet: Sendable {
    /// At least one; the first is the default.
    public let keys: [ContentKey]
    public let drmSystems: [DRMSystemSignaling]
    /// Which key a kind of track takes, where a CPIX usage rule says so; other tracks take the first key.
    public let keyIDByTrackKind: [TrackKind: KeyID]
    public let file: String?

    public init(keys: [ContentKey], drmSystems: [DRMSystemSignaling] = [], keyIDByTrackKind: [TrackKind: KeyID] = [:], file: String? = nil) {
        precondition(!keys.isEmpty, "a key set holds a key")
        self.keys = keys
        self.drmSystems = drmSystems
        self.keyIDByTrackKind = keyIDByTrackKind
        self.file = file
    }

    /// The key a track of this kind is encrypted with.
    public func key(for kind: TrackKind) -> ContentKey {
        keyIDByTrackKind[kind].flatMap { id in keys.first { $0.keyID == id } } ?? keys[0]
    }

    /// The largest content key file read: a CPIX document with many keys and systems is a few hundred kilobytes.
    static let maximumFileSize = 4 << 20

    /// Reads `path`: a regular file that neither group nor other users may access (refused otherwise, as the
    /// token key and the watermark key are), holding a `KID:KEY` line or a CPIX document.
    public static func read(fromFile path: String) throws(ContentKeyFileError) -> ContentKeySet {
        var bytes = try readProtectedFile(path)
        defer { SecureMemory.wipe(&bytes) }
        return try parse(bytes, file: path)
    }

    /// A key file's content (`file` names it in errors).
    public static func parse(_ bytes: [UInt8], file: String) throws(ContentKeyFileError) -> ContentKeySet {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // a UTF-8 byte order mark
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        if start < bytes.count, bytes[start] == UInt8(ascii: "<") {
            return try CPIXDocument.parse(bytes, file: file)
        }
        return try parseKeyLine(bytes[start...], file: file)
    }

    /// `KID:KEY`, 32 hex digits each, on one line (a final line break allowed).
    private static func parseKeyLine(_ bytes: ArraySlice<UInt8>, file: String) throws(ContentKeyFileError) -> ContentKeySet {
        func malformed(_ detail: String) -> ContentKeyFileError { ContentKeyFileError(file: file, problem: .malformed(detail)) }
        var text = Array(bytes)
        defer { SecureMemory.wipe(&text) }
        while let last = text.last, [0x0A, 0x0D, 0x20, 0x09].contains(last) { text.removeLast() }
        guard !text.isEmpty else { throw malformed("the file is empty; expected one line KID:KEY (32 hex digits each) or a CPIX document") }
        guard !text.contains(0x0A) else { throw malformed("more than one line; expected one line KID:KEY (32 hex digits each)") }
        let parts = text.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw malformed("expected one line KID:KEY (32 hex digits each) or a CPIX document") }
        func hexDigits(_ part: ArraySlice<UInt8>, _ name: String) throws(ContentKeyFileError) -> [UInt8] {
            let field = part.filter { $0 != 0x20 && $0 != 0x09 }
            guard field.allSatisfy(Hex.isDigit) else {
                throw malformed("the \(name) is not hexadecimal")
            }
            guard field.count == 32 else { throw malformed("the \(name) has \(field.count) hex digits, 32 expected") }
            guard let bytes = Hex.bytes(String(decoding: field, as: UTF8.self)) else { throw malformed("the \(name) is not hexadecimal") }
            return bytes
        }
        let keyID = KeyID(sixteen: try hexDigits(parts[0], "key ID"))
        var key = try hexDigits(parts[1], "key")
        defer { SecureMemory.wipe(&key) }
        return ContentKeySet(keys: [ContentKey(keyID: keyID, bytes: key, file: file)], file: file)
    }

    /// The bytes of a file only its owner may access.
    static func readProtectedFile(_ path: String) throws(ContentKeyFileError) -> [UInt8] {
        func fail(_ problem: ContentKeyFileError.Problem) -> ContentKeyFileError { ContentKeyFileError(file: path, problem: problem) }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw errno == ENOENT ? fail(.missing) : fail(.unreadable(errno: errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw fail(.unreadable(errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw fail(.notARegularFile) }
        guard info.st_mode & 0o077 == 0 else { throw fail(.accessibleByOthers(mode: UInt32(info.st_mode))) }
        guard Int(info.st_size) <= maximumFileSize else {
            throw fail(.malformed("\(info.st_size) bytes; a key file or CPIX document is at most \(maximumFileSize >> 20) MB"))
        }
        // One byte more than the file's size shows a file that grew since fstat.
        var buffer = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var count = 0
        while count < buffer.count {
            // Never empty (one byte more than the size), so it has an address.
            let n = buffer.withUnsafeMutableBytes { bytes in bytes.baseAddress.map { Glibc.read(descriptor, $0 + count, bytes.count - count) } ?? 0 }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                let code = errno
                SecureMemory.wipe(&buffer)
                throw fail(.unreadable(errno: code))
            }
            count += n
        }
        let bytes = Array(buffer[..<min(count, Int(info.st_size))])
        SecureMemory.wipe(&buffer)
        return bytes
    }
}
