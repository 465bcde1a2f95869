import Foundation

/// How a `SegmentMaker` decodes a segment's pictures: the segment's own GOPs, drained at its end
/// (a segment made alone, or one of a presentation whose segments are mostly copied), or one run
/// of the decoder through the whole video (a whole encoded presentation, a video without
/// presentation times).
extension SegmentMaker {
    /// Decodes `packets` (the segment's GOPs) and hands on each picture presented in segment `k`,
    /// in presentation order; returns how many pictures the decoder gave (those of the GOP before
    /// the segment's first picture included). The decoder is drained and reset afterwards, as if
    /// the segment had been decoded alone.
    func decode(_ packets: [Packet], segment k: Int, onPicture: (Frame, Int64) throws -> Void) throws -> Int {
        let decoder = try self.decoder ?? Decoder(stream: reader.videoStream, file: source.input, threads: source.settings.threads)
        self.decoder = decoder
        let frame = try Frame()
        var pictures = 0
        let policy = source.damagePolicy
        // Damage counts only where a picture of this segment is concerned: its GOP's earlier
        // pictures (decoded for their references) and an open GOP's leading ones do not matter.
        func record(_ damage: MediaError) throws {
            damagedPackets += 1
            if policy == .fail {
                throw MediaError(file: source.input, detail: "damaged data (\(damage)); stopped (--errors fail)", code: damage.code)
            }
        }
        func handle(_ frame: Frame) throws {
            pictures += 1
            guard let pts = frame.bestEffortTimestamp ?? frame.presentationTimestamp, plan.segment(containing: pts) == k else { return }
            if frame.isDamaged { try record(MediaError(file: source.input, detail: "the picture at \(pts) is damaged")) }
            try onPicture(frame, pts)
        }
        for packet in packets {
            try Interruption.throwIfRequested()
            let inSegment = packet.presentationTimestamp.map { plan.segment(containing: $0) == k } ?? true
            try decoder.decode(packet, into: frame, onDamage: { damage, sending in if sending && inSegment { try record(damage) } },
                               onFrame: handle)
        }
        try decoder.decode(nil, into: frame, onDamage: { _, _ in }, onFrame: handle)
        decoder.flush()
        return pictures
    }

    /// The pictures of segment `k` from the one run of the decoder (segments asked in order).
    /// With presentation times a picture belongs to the segment whose span holds its time (the
    /// decoder gives them in presentation order, so one of a later segment ends this one); without,
    /// pictures are known by their order, and a segment made alone runs from the start too.
    /// Returns the pictures the decoder gave for it: its own and those before it not yet taken
    /// (all of them from the start, for a segment made alone).
    func decodeContinuously(segment k: Int, onPicture: (Frame, Int64) throws -> Void) throws -> Int {
        let state = try continuous ?? ContinuousDecoding(source: source)
        continuous = state
        let byOrder = plan.decodesFromStart
        let range = plan.positions[k]
        var pictures = 0
        while true {
            while let frame = state.held.first {
                let pts: Int64
                if byOrder {
                    guard state.given < range.upperBound else { return pictures }
                    state.held.removeFirst()
                    let j = state.given
                    state.given += 1
                    // A picture before the segment was decoded for it too (a segment alone decodes from the start).
                    pictures += 1
                    guard j >= range.lowerBound else { continue }
                    pts = source.index.packets[j].pts
                } else {
                    guard let time = frame.bestEffortTimestamp ?? frame.presentationTimestamp else {
                        state.held.removeFirst()
                        pictures += 1
                        continue
                    }
                    let segment = plan.segment(containing: time)
                    if segment > k { return pictures }
                    state.held.removeFirst()
                    pictures += 1
                    guard segment == k else { continue }
                    pts = time
                }
                if frame.isDamaged { try recordDamage(MediaError(file: source.input, detail: "the picture at \(pts) is damaged")) }
                try onPicture(frame, pts)
            }
            if byOrder && state.given >= range.upperBound { return pictures }
            if state.ended { return pictures }
            try Interruption.throwIfRequested()
            try state.decodeMore { try self.recordDamage($0) }
        }
    }

    func recordDamage(_ damage: MediaError) throws {
        damagedPackets += 1
        if source.damagePolicy == .fail {
            throw MediaError(file: source.input, detail: "damaged data (\(damage)); stopped (--errors fail)", code: damage.code)
        }
    }
}

/// One run of a video's decoder from its first packet, its pictures held until a segment takes them.
final class ContinuousDecoding {
    let file: InputFile
    let stream: Int
    let decoder: Decoder
    let packet: Packet
    let frame: Frame
    let name: String
    /// Pictures decoded and not yet taken, in presentation order.
    var held: [Frame] = []
    /// How many pictures segments have taken.
    var given = 0
    var ended = false

    init(source: PresentationSource) throws {
        file = try InputFile(path: source.input)
        self.stream = source.videoStream
        decoder = try Decoder(stream: file.stream(source.videoStream), file: source.input, threads: source.settings.threads)
        packet = try Packet()
        frame = try Frame()
        name = source.input
    }

    /// Feeds the decoder the next video packet (or drains it at the end) and holds what comes out.
    func decodeMore(onDamage: (MediaError) throws -> Void) throws {
        let hold = { (frame: Frame) in
            let kept = try Frame()
            try kept.reference(frame, file: self.name)
            self.held.append(kept)
        }
        while try file.read(into: packet) {
            defer { packet.unref() }
            guard packet.streamIndex == stream else { continue }
            try decoder.decode(packet, into: frame, onDamage: { damage, sending in if sending { try onDamage(damage) } }, onFrame: hold)
            return
        }
        try decoder.decode(nil, into: frame, onDamage: { _, _ in }, onFrame: hold)
        ended = true
    }
}
