/// One run of a sample: clear bytes, then protected bytes (ISO/IEC 23001-7 §7.2, a `senc` subsample entry).
public struct Subsample: Equatable, Sendable {
    public var clearBytes: UInt16
    public var protectedBytes: UInt32

    public init(clearBytes: UInt16, protectedBytes: UInt32) {
        self.clearBytes = clearBytes
        self.protectedBytes = protectedBytes
    }
}

/// One sample's encryption parameters: its `senc` entry and the size `saiz` gives it.
struct SampleEncryptionEntry: Equatable, Sendable {
    /// Empty with a constant IV.
    var iv: [UInt8]
    /// Empty for full-sample encryption.
    var subsamples: [Subsample]

    func auxiliarySize(usesSubsamples: Bool) -> Int { iv.count + (usesSubsamples ? 2 + 6 * subsamples.count : 0) }

    func write(into writer: inout ByteWriter, usesSubsamples: Bool) {
        writer.append(iv)
        guard usesSubsamples else { return }
        writer.u16(UInt16(subsamples.count))
        for subsample in subsamples {
            writer.u16(subsample.clearBytes)
            writer.u32(subsample.protectedBytes)
        }
    }
}

/// Encrypts and decrypts one sample in place as a scheme says, given its IV and subsamples.
struct SampleCipher {
    let scheme: EncryptionScheme
    let pattern: (crypt: Int, skip: Int)
    private let cipher: AESCipher

    init(scheme: EncryptionScheme, pattern: (crypt: Int, skip: Int), key: ContentKey, encrypting: Bool) throws(PackagingCryptoError) {
        self.scheme = scheme
        self.pattern = pattern
        let mode: AESCipher.Mode = scheme == .cenc ? .counter : .blockChaining
        cipher = try key.withUnsafeBytes { key throws(PackagingCryptoError) in
            try AESCipher(mode, encrypting: encrypting, key: key, iv: [UInt8](repeating: 0, count: 16))
        }
    }

    /// Encrypts (or decrypts) `range` of `bytes`: whole when `subsamples` is empty, else each subsample's protected
    /// bytes. `iv` is the sample's 16-byte IV (an 8-byte one padded with zeros) or the constant IV.
    func apply(to bytes: inout [UInt8], range: Range<Int>, iv: [UInt8], subsamples: [Subsample]) throws(PackagingCryptoError) {
        switch scheme {
        case .cenc:
            // One counter runs through all protected bytes of the sample (§10.1).
            try cipher.restart(iv: iv)
            if subsamples.isEmpty {
                try cipher.apply(to: &bytes, range: range)
            } else {
                var at = range.lowerBound
                for subsample in subsamples {
                    at += Int(subsample.clearBytes)
                    try cipher.apply(to: &bytes, range: at..<at + Int(subsample.protectedBytes))
                    at += Int(subsample.protectedBytes)
                }
            }
        case .cbcs:
            if subsamples.isEmpty {
                try cbcsProtect(&bytes, at: range.lowerBound, count: range.count, iv: iv)
            } else {
                var at = range.lowerBound
                for subsample in subsamples {
                    at += Int(subsample.clearBytes)
                    try cbcsProtect(&bytes, at: at, count: Int(subsample.protectedBytes), iv: iv)
                    at += Int(subsample.protectedBytes)
                }
            }
        }
    }

    /// One `cbcs` protected range (§10.4): the chain starts from the constant IV; with a pattern, `crypt` blocks are
    /// encrypted and `skip` left clear in turn, and fewer than `crypt` whole blocks left at the end stay clear; without
    /// one, every whole block is encrypted. A partial block at the end is always clear.
    private func cbcsProtect(_ bytes: inout [UInt8], at start: Int, count: Int, iv: [UInt8]) throws(PackagingCryptoError) {
        try cipher.restart(iv: iv)
        let block = AESCipher.blockSize
        guard pattern.crypt > 0 else {
            try cipher.apply(to: &bytes, range: start..<start + count / block * block)
            return
        }
        var at = start
        var left = count
        while left >= pattern.crypt * block {
            try cipher.apply(to: &bytes, range: at..<at + pattern.crypt * block)
            at += pattern.crypt * block
            left -= pattern.crypt * block
            let skipped = min(pattern.skip * block, left)
            at += skipped
            left -= skipped
        }
    }
}
