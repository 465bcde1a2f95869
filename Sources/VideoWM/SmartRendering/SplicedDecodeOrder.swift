/// The output's video packets in decode order, and the decode timestamp each gets.
///
/// Copied packets keep their place; each span's encoded packets take the place of the span's first
/// replaced packet (HEVC RASL pictures that joined the span are left out where they were). Every
/// output packet takes the input's decode timestamp of the same position, so the decode delay, the
/// MP4 edit list and every copied packet's timing stay the input's; this is valid when no packet then
/// decodes after it is shown, which the encoder's reorder depth (never above the input's) ensures and
/// `make` checks.
struct SplicedDecodeOrder: Equatable {
    enum Source: Equatable {
        case copied(packet: Int)
        /// The `index`th packet the encoder produced for span `span`, in its own decode order.
        case encoded(span: Int, index: Int)
    }

    struct Entry: Equatable {
        var source: Source
        var pts: Int64
        var dts: Int64
    }

    var entries: [Entry]

    enum Failure: Error, Equatable, CustomStringConvertible {
        /// The encoder gave a span more or fewer pictures than it replaces.
        case pictureCountMismatch(span: Int, replaced: Int, encoded: Int)
        /// A packet would be decoded after it is shown (the re-encode reorders deeper than the input).
        case decodedAfterShown(pts: Int64, dts: Int64)

        var description: String {
            switch self {
            case .pictureCountMismatch(let span, let replaced, let encoded):
                "span \(span) replaces \(replaced) pictures but the encoder gave \(encoded)"
            case .decodedAfterShown(let pts, let dts):
                "a re-encoded picture (pts \(pts)) would be decoded at \(dts), after it is shown"
            }
        }
    }

    /// - Parameters:
    ///   - inputPTS, inputDTS: the input's video packets in decode order.
    ///   - encodedPTS: per span, the encoder's packets' presentation timestamps in their decode order.
    static func make(plan: SmartPlan, inputPTS: [Int64], inputDTS: [Int64],
                            encodedPTS: [[Int64]]) throws(Failure) -> SplicedDecodeOrder {
        precondition(inputPTS.count == plan.packetCount && inputDTS.count == plan.packetCount, "one timestamp per packet")
        precondition(encodedPTS.count == plan.spans.count, "encoded packets for every span")
        var spanStartingAt: [Int: Int] = [:]
        var replaced = Set<Int>()
        for (n, span) in plan.spans.enumerated() {
            guard encodedPTS[n].count == span.replacedPackets.count else {
                throw .pictureCountMismatch(span: n, replaced: span.replacedPackets.count, encoded: encodedPTS[n].count)
            }
            spanStartingAt[span.replacedPackets[0]] = n
            replaced.formUnion(span.replacedPackets)
        }
        var entries: [Entry] = []
        entries.reserveCapacity(plan.packetCount)
        for packet in 0..<plan.packetCount {
            if let span = spanStartingAt[packet] {
                for (index, pts) in encodedPTS[span].enumerated() {
                    entries.append(Entry(source: .encoded(span: span, index: index), pts: pts, dts: inputDTS[entries.count]))
                }
            }
            if !replaced.contains(packet) {
                entries.append(Entry(source: .copied(packet: packet), pts: inputPTS[packet], dts: inputDTS[entries.count]))
            }
        }
        for entry in entries where entry.dts > entry.pts {
            throw .decodedAfterShown(pts: entry.pts, dts: entry.dts)
        }
        return SplicedDecodeOrder(entries: entries)
    }
}
