import Foundation

/// One copy of a variant lecture as a media file: the initialization and every segment its
/// playlist would list, in order, as one fragmented MP4 (`ftyp` + `moov`, then `moof` + `mdat`
/// per segment, a `free` box after a padded render) — the same bytes an HLS copy is made of, so
/// the file's tracks, durations and edit lists are the presentation's. Another container (`.mkv`,
/// `.ts`, `.mov`) gets those packets copied into it (`StreamRemux`), nothing decoded. It appears
/// only whole (`AtomicOutput`). The lecture's shared renders are kept once in `scratch` (a folder
/// the writer removes at its end), the copy's own segments in memory until its file is written.
final class FragmentedMP4File: PresentationStorage {
    private enum Part {
        case shared(path: String)
        case own([UInt8])
    }

    private let output: AtomicOutput
    private let scratch: String
    /// Where the fragmented MP4 is copied into at the end, when the target is another container.
    private let remux: (target: OutputTarget, overwrite: Bool, inputs: [String])?
    private var initialization: [UInt8]?
    private var parts: [Int: Part] = [:]
    private var committed = false

    init(target: OutputTarget, overwrite: Bool, inputs: [String], scratch: String) throws {
        self.scratch = scratch
        if target.isMP4File {
            output = try AtomicOutput(target: target.path, overwrite: overwrite, inputs: inputs)
            remux = nil
        } else {
            precondition(target.container.canHold(.h264), "Lecture.checkCopyTarget refuses a container without H.264")
            // Refused up front as any output is: one that exists without -y, or that is an input.
            _ = try AtomicOutput(target: target.path, overwrite: overwrite, inputs: inputs)
            let assembled = (scratch as NSString).appendingPathComponent("copy-\(PartialOutputFiles.randomToken()).mp4")
            output = try AtomicOutput(target: assembled, overwrite: true, inputs: inputs)
            remux = (target, overwrite, inputs)
        }
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
        parts = [:]
        if let remux {
            defer { try? FileManager.default.removeItem(atPath: output.target) }
            try StreamRemux.copy(from: output.target, into: remux.target, overwrite: remux.overwrite, inputs: remux.inputs)
        }
        committed = true
    }

    func abandon() {
        guard !committed else { return }
        output.discard()
        parts = [:]
    }
}
