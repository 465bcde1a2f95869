/// A box of an ISO BMFF file, parsed as deep as the packager edits it: a container's children are boxes (sizes are
/// recomputed when it is written back), any other box keeps its payload as bytes.
struct Box: Equatable, Sendable {
    var type: FourCC
    /// The bytes between the header and the children: a full box's version and flags, a sample entry's fixed fields,
    /// `stsd`'s entry count. For a box that is not a container, its whole payload.
    var fields: [UInt8]
    var children: [Box]
    let isContainer: Bool

    init(_ type: FourCC, fields: [UInt8] = [], children: [Box] = [], isContainer: Bool? = nil) {
        self.type = type
        self.fields = fields
        self.children = children
        self.isContainer = isContainer ?? !children.isEmpty
    }

    /// A container of `children` only.
    static func container(_ type: FourCC, _ children: [Box]) -> Box { Box(type, children: children, isContainer: true) }

    /// A box that holds bytes only.
    static func leaf(_ type: FourCC, _ payload: [UInt8]) -> Box { Box(type, fields: payload, isContainer: false) }

    /// A full box (version and flags, then `body`) that holds bytes only.
    static func fullLeaf(_ type: FourCC, version: UInt8, flags: UInt32, body: [UInt8]) -> Box {
        leaf(type, fullBoxHeader(version: version, flags: flags) + body)
    }

    /// A full box's bytes, header included.
    static func fullBox(_ type: FourCC, version: UInt8, flags: UInt32, body: [UInt8]) -> [UInt8] {
        fullLeaf(type, version: version, flags: flags, body: body).bytes
    }

    static func fullBoxHeader(version: UInt8, flags: UInt32) -> [UInt8] {
        [version, UInt8(truncatingIfNeeded: flags >> 16), UInt8(truncatingIfNeeded: flags >> 8), UInt8(truncatingIfNeeded: flags)]
    }

    /// A full box's version (the first byte of its fields).
    var version: UInt8 { fields.first ?? 0 }
    /// A full box's flags.
    var flags: UInt32 { fields.count >= 4 ? UInt32(fields[1]) << 16 | UInt32(fields[2]) << 8 | UInt32(fields[3]) : 0 }

    var payloadSize: Int { fields.count + children.reduce(0) { $0 + $1.size } }
    var size: Int { payloadSize + (payloadSize + 8 > Int(UInt32.max) ? 16 : 8) }

    var bytes: [UInt8] {
        var writer = ByteWriter(capacity: size)
        write(into: &writer)
        return writer.bytes
    }

    func write(into writer: inout ByteWriter) {
        if payloadSize + 8 > Int(UInt32.max) {
            writer.u32(1)
            writer.fourCC(type)
            writer.u64(UInt64(payloadSize + 16))
        } else {
            writer.u32(UInt32(payloadSize + 8))
            writer.fourCC(type)
        }
        writer.append(fields)
        for child in children { child.write(into: &writer) }
    }

    func child(_ type: FourCC) -> Box? { children.first { $0.type == type } }
    func children(_ type: FourCC) -> [Box] { children.filter { $0.type == type } }

    /// The first box down a path of types (`["mdia", "minf", "stbl"]`).
    func descendant(_ path: [FourCC]) -> Box? {
        path.reduce(Optional(self)) { box, type in box?.child(type) }
    }

    /// Changes the first box down a path of types; false when there is none.
    @discardableResult
    mutating func modifyDescendant(_ path: [FourCC], _ body: (inout Box) throws -> Void) rethrows -> Bool {
        guard let first = path.first else {
            try body(&self)
            return true
        }
        guard let index = children.firstIndex(where: { $0.type == first }) else { return false }
        return try children[index].modifyDescendant(Array(path.dropFirst()), body)
    }
}

// MARK: Reading

/// Where one box lies in a byte array.
struct BoxExtent {
    var type: FourCC
    var start: Int
    var headerSize: Int
    var end: Int
    var payload: Range<Int> { start + headerSize..<end }
}

extension Box {
    /// Boxes that hold only boxes.
    static let plainContainers: Set<FourCC> = ["moov", "trak", "mdia", "minf", "stbl", "mvex", "moof", "traf", "dinf", "edts",
                                                 "sinf", "schi", "mfra"]
    /// Sample entries of visual tracks: 78 bytes of fields (ISO/IEC 14496-12 §12.1.3), then boxes.
    static let visualSampleEntries: Set<FourCC> = ["avc1", "avc3", "hvc1", "hev1", "vp09", "av01", "encv", "dvh1", "dvhe"]
    /// Sample entries of audio tracks: 28 bytes of fields (more for QuickTime's versions 1 and 2), then boxes.
    static let audioSampleEntries: Set<FourCC> = ["mp4a", "Opus", "ac-3", "ec-3", "fLaC", "enca", "alac"]

    /// The boxes one after another in `range` of `bytes`, without looking inside them.
    static func extents(in bytes: [UInt8], range: Range<Int>? = nil, location: String) throws(MP4StructureError) -> [BoxExtent] {
        let range = range ?? 0..<bytes.count
        var extents: [BoxExtent] = []
        var offset = range.lowerBound
        while offset < range.upperBound {
            var reader = ByteReader(bytes, range: offset..<range.upperBound, location: location)
            var size = UInt64(try reader.u32())
            let type = FourCC(value: try reader.u32())
            var header = 8
            if size == 1 {
                size = try reader.u64()
                header = 16
            } else if size == 0 {
                size = UInt64(range.upperBound - offset)
            }
            guard size >= UInt64(header), size <= UInt64(range.upperBound - offset) else {
                throw .malformed(location.isEmpty ? "\(type)" : "\(location)/\(type)",
                                 "a box of \(size) bytes at offset \(offset) does not fit in the \(range.upperBound - offset) bytes left")
            }
            extents.append(BoxExtent(type: type, start: offset, headerSize: header, end: offset + Int(size)))
            offset += Int(size)
        }
        return extents
    }

    /// The boxes in `range` of `bytes`, containers parsed into their children.
    static func parse(_ bytes: [UInt8], range: Range<Int>? = nil, location: String = "") throws(MP4StructureError) -> [Box] {
        var boxes: [Box] = []
        for extent in try extents(in: bytes, range: range, location: location) {
            boxes.append(try parse(bytes, extent: extent, location: location.isEmpty ? "\(extent.type)" : "\(location)/\(extent.type)"))
        }
        return boxes
    }

    private static func parse(_ bytes: [UInt8], extent: BoxExtent, location: String) throws(MP4StructureError) -> Box {
        let payload = extent.payload
        guard let fieldCount = try containerFieldCount(extent.type, bytes: bytes, payload: payload, location: location) else {
            return .leaf(extent.type, Array(bytes[payload]))
        }
        guard fieldCount <= payload.count else {
            throw .malformed(location, "\(payload.count) bytes, too short for its \(fieldCount) bytes of fields")
        }
        let childRange = payload.lowerBound + fieldCount..<payload.upperBound
        return Box(extent.type, fields: Array(bytes[payload.lowerBound..<childRange.lowerBound]),
                   children: try parse(bytes, range: childRange, location: location), isContainer: true)
    }

    /// How many bytes of fields come before a container's children; nil for a box parsed as bytes.
    private static func containerFieldCount(_ type: FourCC, bytes: [UInt8], payload: Range<Int>, location: String) throws(MP4StructureError) -> Int? {
        if plainContainers.contains(type) { return 0 }
        if type == "stsd" { return 8 }
        if visualSampleEntries.contains(type) { return 78 }
        if audioSampleEntries.contains(type) {
            // SoundDescription version (QuickTime) in the first reserved field: 1 adds 16 bytes, 2 adds 36.
            var reader = ByteReader(bytes, range: payload, location: location)
            try reader.skip(8)
            switch try reader.u16() {
            case 0: return 28
            case 1: return 44
            case 2: return 64
            case let version: throw .unsupported(location, "audio sample entry version \(version)")
            }
        }
        return nil
    }
}
