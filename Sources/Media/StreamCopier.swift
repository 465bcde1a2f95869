/// Copies one input stream's packets into an output stream unchanged, their timestamps
/// rescaled to the output's time base.
package final class StreamCopier {
    let sink: PacketSink
    private let timeBase: Rational
    private let scratch: Packet
    private let file: String

    /// A copier of `input`'s packets into `sink`; `file` names the output in errors.
    package init(from input: InputStream, to sink: PacketSink, file: String) throws {
        self.sink = sink
        timeBase = input.timeBase
        scratch = try Packet()
        self.file = file
    }

    /// Writes a reference to `packet` (the caller keeps its own).
    package func copy(_ packet: Packet) throws {
        try scratch.reference(packet, file: file)
        scratch.clearPosition()
        try sink.write(scratch, timeBase: timeBase)
    }
}
