/// A 16-byte identifier written as a UUID: a content key's KID (ISO/IEC 23001-7 §3.1.6), or a DRM system's
/// SystemID (§8.1.2). The bytes are big-endian in boxes; the text is the UUID's, lowercase, with dashes.
public struct UUIDBytes: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Sixteen bytes the caller read or checked as sixteen (a box's field): a misuse otherwise.
    init(sixteen bytes: [UInt8]) {
        precondition(bytes.count == 16, "a UUID is 16 bytes")
        self.bytes = bytes
    }

    /// A UUID written in this file's source (a registry's SystemID): a misuse unless well formed.
    init(known text: StaticString) {
        guard let made = UUIDBytes(text: "\(text)") else { preconditionFailure("\(text) is not a UUID") }
        self = made
    }

    /// 32 hex digits, with or without the UUID's four dashes (8-4-4-4-12), in either case; nil for anything else.
    public init?(text: some StringProtocol) {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.count == 1 || groups.map(\.count) == [8, 4, 4, 4, 12],
              let bytes = Hex.bytes(groups.joined()), bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Lowercase 8-4-4-4-12 UUID form: `cenc:default_KID`, CPIX `kid`, DASH `urn:uuid:…`.
    public var uuidString: String {
        let hex = Array(Hex.string(bytes))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(hex[$0]) }.joined(separator: "-")
    }

    /// 32 lowercase hex digits, no dashes (`KEYID=0x…`, ffmpeg's options).
    public var hex: String { Hex.string(bytes) }

    public var description: String { uuidString }
}

/// A content key's identifier (KID).
public typealias KeyID = UUIDBytes

/// A DRM system's identifier, as in `pssh` boxes and DASH `urn:uuid:` schemes.
public typealias SystemID = UUIDBytes

extension UUIDBytes {
    /// W3C Clear Key (the DASH-IF registry's identifier): browsers' built-in key system that takes keys in the clear
    /// from a JSON Web Key set licence.
    public static let clearKey = UUIDBytes(known: "e2719d58-a985-b3c9-781a-b030af78d30e")
    /// The W3C "common" system (EME's `cenc` init data format): a `pssh` that lists key IDs only, from which any
    /// key system (Chromium's Clear Key among them) learns which keys to ask for.
    public static let commonSystem = UUIDBytes(known: "1077efec-c0b2-4d02-ace3-3c1e52e2fb4b")
    public static let widevine = UUIDBytes(known: "edef8ba9-79d6-4ace-a3c8-27dcd51d21ed")
    public static let playReady = UUIDBytes(known: "9a04f079-9840-4286-ab92-e65be0885f95")
    public static let fairPlay = UUIDBytes(known: "94ce86fb-07ff-4f43-adb8-93d2fa968ca2")
}
