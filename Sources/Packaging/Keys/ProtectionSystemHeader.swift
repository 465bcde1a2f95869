/// A Protection System Specific Header box (`pssh`, ISO/IEC 23001-7 §8.1): what one DRM system needs to license a
/// presentation, carried in the initialization segment's `moov` and in the MPD's `cenc:pssh`.
public struct ProtectionSystemHeader: Equatable, Sendable {
    public var systemID: SystemID
    /// The key IDs it applies to; a version 1 box lists them (the form EME's `cenc` init data requires).
    public var keyIDs: [KeyID]
    /// The system's own data (empty for Clear Key and the common system).
    public var data: [UInt8]

    public init(systemID: SystemID, keyIDs: [KeyID], data: [UInt8] = []) {
        self.systemID = systemID
        self.keyIDs = keyIDs
        self.data = data
    }

    /// The W3C common-system box: the key IDs only, which Chromium's Clear Key reads to ask for keys.
    public static func commonSystem(keyIDs: [KeyID]) -> ProtectionSystemHeader {
        ProtectionSystemHeader(systemID: .commonSystem, keyIDs: keyIDs)
    }

    /// The W3C Clear Key box (DASH-IF's system ID): the key IDs only.
    public static func clearKey(keyIDs: [KeyID]) -> ProtectionSystemHeader {
        ProtectionSystemHeader(systemID: .clearKey, keyIDs: keyIDs)
    }

    /// The whole box: version 1 when it lists key IDs, else version 0.
    public var bytes: [UInt8] { box.bytes }

    var box: Box {
        var body = ByteWriter()
        body.append(systemID.bytes)
        if !keyIDs.isEmpty {
            body.u32(UInt32(keyIDs.count))
            for keyID in keyIDs { body.append(keyID.bytes) }
        }
        body.u32(UInt32(data.count))
        body.append(data)
        return .fullLeaf("pssh", version: keyIDs.isEmpty ? 0 : 1, flags: 0, body: body.bytes)
    }

    /// Reads a whole `pssh` box (a CPIX `PSSH` element's content).
    public init(parsing bytes: [UInt8]) throws(MP4StructureError) {
        var reader = ByteReader(bytes, location: "pssh")
        let size = try reader.u32()
        guard try reader.u32() == FourCC("pssh").value else { throw .malformed("pssh", "not a pssh box") }
        guard size == bytes.count else { throw .malformed("pssh", "the box says \(size) bytes, \(bytes.count) given") }
        let version = try reader.u8()
        try reader.skip(3)
        guard version <= 1 else { throw .unsupported("pssh", "version \(version)") }
        systemID = SystemID(sixteen: try reader.bytes(16))
        keyIDs = []
        if version == 1 {
            let count = try reader.u32()
            guard Int(count) <= reader.remaining / 16 else { throw .malformed("pssh", "\(count) key IDs do not fit") }
            for _ in 0..<count { keyIDs.append(KeyID(sixteen: try reader.bytes(16))) }
        }
        let dataSize = try reader.u32()
        data = try reader.bytes(Int(dataSize))
        guard reader.remaining == 0 else { throw .malformed("pssh", "\(reader.remaining) bytes after the data") }
    }
}
