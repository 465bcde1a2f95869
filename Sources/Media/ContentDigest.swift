internal import CFFmpeg

/// SHA-256 (libavutil's), to name files by their content (and, for `videowm serve`, to tag a
/// lecture's revision).
public enum ContentDigest {
    package static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        // libavutil's context, in memory Swift allocates (as every Swift allocation, it traps
        // only when the process is out of memory): no allocation of FFmpeg's that could fail here.
        let memory = UnsafeMutableRawPointer.allocate(byteCount: Int(av_sha_size), alignment: 16)
        defer { memory.deallocate() }
        let context = OpaquePointer(memory)
        av_sha_init(context, 256)
        if let base = bytes.baseAddress, bytes.count > 0 {
            av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { av_sha_final(context, $0.baseAddress) }
        return digest
    }

    /// The SHA-256 of `bytes` (32 bytes).
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { sha256($0) }
    }
}
