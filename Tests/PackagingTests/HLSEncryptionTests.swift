import Foundation
@testable import Packaging
import Testing

/// HLS AES-128 segments against OpenSSL's command line (an implementation nobody here wrote), and `EXT-X-KEY` lines.
@Suite("HLS AES-128 and EXT-X-KEY")
struct HLSEncryptionTests {
    @Test("AES-128-CBC with PKCS#7 equals `openssl enc -aes-128-cbc` for the sequence-number IV and a derived one; it decrypts back")
    func matchesOpenSSL() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let key = try TestKeys.keySet().keys[0]
        for length in [0, 1, 15, 16, 17, 1000, 4096] {
            let segment = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            for source in [AES128Segments.IVSource.mediaSequence(7), .derived, .explicit(Array(200..<216))] {
                let encrypted = try AES128Segments.encrypt(segment, key: key, iv: source)
                #expect(encrypted.bytes.count == (length / 16 + 1) * 16)
                try scratch.write("plain", segment)
                let openssl = try scratch.run("openssl", ["enc", "-aes-128-cbc", "-K", TestKeys.keyHex, "-iv", Hex.string(encrypted.iv), "-in", "plain"])
                #expect(openssl.status == 0 && [UInt8](openssl.output) == encrypted.bytes, "\(openssl.errorText)")
                #expect(try AES128Segments.decrypt(encrypted.bytes, key: key, iv: encrypted.iv) == segment)
                if case .mediaSequence = source {
                    #expect(encrypted.iv == [UInt8](repeating: 0, count: 15) + [7] && !encrypted.ivIsExplicit)
                } else {
                    #expect(encrypted.ivIsExplicit)
                }
            }
        }
    }

    @Test("derived IVs: the same segment the same IV, another segment or key another")
    func derivedIVs() throws {
        let key = try TestKeys.keySet().keys[0]
        let other = try TestKeys.keySet(key: TestKeys.otherKeyHex).keys[0]
        let a = Array("segment a".utf8), b = Array("segment b".utf8)
        let iv = try AES128Segments.encrypt(a, key: key, iv: .derived).iv
        #expect(try AES128Segments.encrypt(a, key: key, iv: .derived).iv == iv)
        #expect(try AES128Segments.encrypt(b, key: key, iv: .derived).iv != iv)
        #expect(try AES128Segments.encrypt(a, key: other, iv: .derived).iv != iv)
        #expect(throws: PackagingCryptoError.self) { try AES128Segments.decrypt(Array(repeating: 1, count: 32), key: key, iv: iv) }
    }

    @Test("EXT-X-KEY lines: AES-128 with and without IV, Clear Key for cbcs and cenc, identity; the version each needs")
    func keyLines() {
        #expect(HLSKeyTag.aes128(uri: "key.bin").line == "#EXT-X-KEY:METHOD=AES-128,URI=\"key.bin\"")
        #expect(HLSKeyTag.aes128(uri: "k?token=a", iv: Array(0..<16)).line
                == "#EXT-X-KEY:METHOD=AES-128,URI=\"k?token=a\",IV=0x000102030405060708090A0B0C0D0E0F")
        #expect(HLSKeyTag.clearKey(scheme: .cbcs, licenceURI: "https://x/licence").line
                == "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"https://x/licence\",KEYFORMAT=\"org.w3.clearkey\",KEYFORMATVERSIONS=\"1\"")
        #expect(HLSKeyTag.clearKey(scheme: .cenc, licenceURI: "l").line.hasPrefix("#EXT-X-KEY:METHOD=SAMPLE-AES-CTR,"))
        #expect(HLSKeyTag.identity(scheme: .cbcs, uri: "key.bin").sessionKeyLine == "#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI=\"key.bin\"")
        #expect(HLSKeyTag.aes128(uri: "k").minimumVersion == 1 && HLSKeyTag.aes128(uri: "k", iv: Array(0..<16)).minimumVersion == 2)
        #expect(HLSKeyTag.clearKey(scheme: .cbcs, licenceURI: "l").minimumVersion == 5)
        #expect(HLSKeyTag(method: .none).line == "#EXT-X-KEY:METHOD=NONE")
    }
}
