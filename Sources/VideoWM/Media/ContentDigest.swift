import CFFmpeg

/// SHA-256 (libavutil's), to name files by their content (and, for `videowm serve`, to tag a
/// lecture's revision).
public enum ContentDigest {
    static func sha256(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        // av_sha_alloc is a small malloc; out of memory there is not worth a thrown error path.
        guard let context = av_sha_alloc() else { fatalError("av_sha_alloc: out of memory") }
        defer { av_free(UnsafeMutableRawPointer(context)) }
        av_sha_init(context, 256)
        if let base = bytes.baseAddress, bytes.count > 0 {
            av_sha_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
        }
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { av_sha_final(context, $0.baseAddress) }
        return digest
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { sha256($0) }
    }
}
