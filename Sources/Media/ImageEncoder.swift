internal import CFFmpeg

/// One picture encoded by one of FFmpeg's image encoders (png, libwebp) into a file's bytes.
package final class ImageEncoder {
    private let encoder: Encoder
    private let file: String

    package init(encoderName: String, width: Int, height: Int, format: PixelFormat, options: [String: String], file: String) throws {
        encoder = try Encoder(codecName: encoderName, file: file)
        let c = encoder.context
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.time_base = AVRational(num: 1, den: 25)
        c.pointee.pix_fmt = format.av
        try encoder.open(options: options)
        self.file = file
    }

    /// The file's bytes for `frame` (in the encoder's pixel format).
    package func encode(_ frame: Frame) throws -> [UInt8] {
        frame.presentationTimestamp = 0
        try encoder.send(frame)
        try encoder.send(nil)
        let packet = try Packet()
        var bytes: [UInt8] = []
        while try encoder.receive(into: packet) == .produced {
            packet.withBytes { bytes.append(contentsOf: $0) }
            packet.unref()
        }
        guard !bytes.isEmpty else { throw OutputError(file: file, stage: .writing, detail: "the \(encoder.name) encoder produced nothing") }
        return bytes
    }
}
