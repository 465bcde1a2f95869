import CCrypto

/// Wiping secret bytes with libcrypto's call, which the compiler may not optimise away:
/// key bytes read from a file are wiped once they are in a `ContentKey`.
enum SecureMemory {
    static func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
    }

    static func wipe(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        OPENSSL_cleanse(buffer.baseAddress, buffer.count)
    }
}
