/// Seeds for `Motion.random`, derived from text so each student's rendered e-mail gives its
/// own path and a re-run gives the same one.
public enum RandomSeed {
    /// The 64-bit FNV-1a hash of the text's UTF-8 bytes.
    ///
    /// Stable across runs, machines and Swift versions, unlike `Hasher`, which is seeded
    /// randomly per process. Canonically equivalent spellings (precomposed "é" versus "e" and
    /// a combining accent) hash differently, since their bytes differ.
    public static func from(text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
