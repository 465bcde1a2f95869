import Foundation

/// One row's `.mp4` of a variant lecture: the initialization and every segment its playlist
/// would list, in order, as one fragmented MP4 (`ftyp` + `moov`, then `moof` + `mdat` per
/// segment, a `free` box after a padded render) — the same bytes an HLS row is made of, so the
/// file's tracks, durations and edit lists are the presentation's. It appears only whole
/// (`AtomicOutput`). The lecture's shared renders are kept once in `scratch` (a folder the batch
/// removes at its end), the row's own segments in memory until its file is written.
final class FragmentedMP4File: PresentationStorage {
    private enum Part {
        case shared(path: String)
        case own([UInt8])
    }

    private let output: AtomicOutput
    private let scratch: String
    private var initialization: [UInt8]?
    private var parts: [Int: Part] = [:]
    private var committed = false

    init(target: String, overwrite: Bool, inputs: [String], scratch: String) throws {
        output = try AtomicOutput(target: target, overwrite: overwrite, inputs: inputs)
        self.scratch = scratch
    }

    func store(initialization: RenderedInitialization) throws -> String {
        self.initialization = initialization.bytes
        return "init"
    }

    func store(segment: RenderedSegment) throws -> String {
        if segment.isShared {
            let name = ContentName.of(segment.bytes) + ".m4s"
            _ = try WriteOnceFile.publish(segment.bytes, named: name, in: scratch)
            parts[segment.index] = .shared(path: (scratch as NSString).appendingPathComponent(name))
        } else {
            parts[segment.index] = .own(segment.bytes)
        }
        return "\(segment.index)"
    }

    /// Writes the file (the playlist's text is not needed: the parts are kept by segment index).
    func commit(playlist: String) throws {
        guard let initialization else { preconditionFailure("a presentation needs its initialization") }
        precondition(parts.keys.sorted() == Array(0..<parts.count), "every segment stored")
        try output.write(initialization)
        for (_, part) in parts.sorted(by: { $0.key < $1.key }) {
            switch part {
            case .own(let bytes):
                try output.write(bytes)
            case .shared(let path):
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw OutputError(file: output.target, stage: .writing, detail: "the shared render \(path) went missing")
                }
                try output.write(Array(data))
            }
        }
        try output.commit()
        committed = true
        parts = [:]
    }

    func abandon() {
        guard !committed else { return }
        output.discard()
        parts = [:]
    }
}
