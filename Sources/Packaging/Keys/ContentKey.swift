/// A 128-bit AES content key and its key ID.
///
/// The key's bytes live in memory this object owns and wipes when it goes (`SecureMemory`), never in a `String`:
/// its description, debug description and mirror name only its key ID and file, so no log line or error can show it.
public final class ContentKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable, @unchecked Sendable {
    // Written once in init, then only read: safe to share between threads.
    public static let byteCount = 16

    public let keyID: KeyID
    private let storage: UnsafeMutableBufferPointer<UInt8>
    /// A CPIX `explicitIV` (16 bytes) the key service asks to be used with this key, if any.
    public let explicitIV: [UInt8]?
    /// The file the key was read from, for messages.
    public let file: String?

    /// A key of exactly 16 bytes.
    public init(keyID: KeyID, bytes: some Collection<UInt8>, explicitIV: [UInt8]? = nil, file: String? = nil) {
        precondition(bytes.count == Self.byteCount, "an AES-128 content key has 16 bytes")
        precondition(explicitIV == nil || explicitIV?.count == 16, "an explicit IV has 16 bytes")
        storage = .allocate(capacity: Self.byteCount)
        _ = storage.initialize(from: bytes)
        self.keyID = keyID
        self.explicitIV = explicitIV
        self.file = file
    }

    deinit {
        SecureMemory.wipe(storage)
        storage.deallocate()
    }

    /// The key's bytes, for the cipher that uses them; they stay inside the call.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(E) -> R) throws(E) -> R {
        try body(UnsafeBufferPointer(storage))
    }

    public var description: String { "content key \(keyID)" + (file.map { " from \($0)" } ?? "") }
    public var debugDescription: String { "ContentKey(\(keyID))" }
    public var customMirror: Mirror { Mirror(self, children: ["keyID": keyID, "file": file as Any]) }
}
