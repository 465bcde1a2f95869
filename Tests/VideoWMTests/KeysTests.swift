import Foundation
import Testing
@testable import VideoWM
#if canImport(Glibc)
import Glibc
#endif

/// `Sources/VideoWM/Keys`: HMAC-SHA256 against RFC 4231, HKDF-SHA256 against RFC 5869, and key
/// files (owner-only, 32 bytes, never overwritten, never printed).
@Suite("keys")
struct KeysTests {
    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// RFC 4231 section 4: key, data, HMAC-SHA-256 (test case 5's truncated to 128 bits).
    static let rfc4231: [(key: [UInt8], data: [UInt8], code: String)] = [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (Array(1...25), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0x0c, count: 20), Array("Test With Truncation".utf8),
         "a3b6167473100ee06e0c796c2955552b"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: rfc4231.indices)
    func hmacMatchesRFC4231(testCase: Int) throws {
        let (key, data, expected) = Self.rfc4231[testCase]
        let code = try HMACSHA256.authenticationCode(for: data, key: key)
        #expect(code.count == 32)
        #expect(Self.hex(code).hasPrefix(expected), "test case \(testCase + 1)")
        // Streaming in uneven pieces (and an empty one) gives the same code.
        let mac = try HMACSHA256(key: key)
        var rest = data[...]
        var piece = 1
        while !rest.isEmpty {
            try mac.update(rest.prefix(piece))
            try mac.update([UInt8]())
            rest = rest.dropFirst(piece)
            piece = piece * 2 + 1
        }
        #expect(try mac.finalize() == code)
    }

    @Test func hmacTakesAnyByteSequence() throws {
        let key = Array("Jefe".utf8)
        let fromString = try HMACSHA256.authenticationCode(for: "what do ya want for nothing?".utf8, key: key)
        let fromLazy = try HMACSHA256.authenticationCode(for: "what do ya want for nothing?".utf8.lazy.map { $0 }, key: key.lazy.map { $0 })
        #expect(Self.hex(fromString) == Self.rfc4231[1].code)
        #expect(fromLazy == fromString)
        // An empty key is HMAC's all-zero key.
        #expect(try HMACSHA256.authenticationCode(for: [1, 2, 3], key: [UInt8]())
                == HMACSHA256.authenticationCode(for: [1, 2, 3], key: [UInt8](repeating: 0, count: 64)))
    }

    /// RFC 5869 appendix A, test cases 1–3 (the SHA-256 ones).
    static let rfc5869: [(ikm: [UInt8], salt: [UInt8], info: [UInt8], length: Int, prk: String, okm: String)] = [
        ([UInt8](repeating: 0x0b, count: 22), Array(0x00...0x0c), Array(0xf0...0xf9), 42,
         "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
         "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865"),
        (Array(0x00...0x4f), Array(0x60...0xaf), Array(0xb0...0xff), 82,
         "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
         "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87"),
        ([UInt8](repeating: 0x0b, count: 22), [], [], 42,
         "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
         "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8"),
    ]

    @Test(arguments: rfc5869.indices)
    func hkdfMatchesRFC5869(testCase: Int) throws {
        let v = Self.rfc5869[testCase]
        let prk = try HKDFSHA256.extract(salt: v.salt, inputKeyMaterial: v.ikm)
        #expect(Self.hex(prk) == v.prk, "test case \(testCase + 1)")
        #expect(Self.hex(try HKDFSHA256.expand(pseudorandomKey: prk, info: v.info, byteCount: v.length)) == v.okm)
        #expect(Self.hex(try HKDFSHA256.deriveKey(inputKeyMaterial: v.ikm, salt: v.salt, info: v.info, byteCount: v.length)) == v.okm)
        // A shorter output is a prefix of a longer one.
        #expect(try HKDFSHA256.expand(pseudorandomKey: prk, info: v.info, byteCount: 5) == Self.bytes(String(v.okm.prefix(10))))
    }

    @Test func constantTimeComparison() {
        #expect(ConstantTime.equal([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equal([1, 2, 3], [1, 2]))
        #expect(ConstantTime.equal([], []))
    }

    @Test func randomBytesDiffer() throws {
        let a = try SecureRandom.bytes(count: 32), b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32 && a != b)
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
    }

    // MARK: Key files

    static func temporaryFolder() throws -> String {
        let path = NSTemporaryDirectory() + "videowm-keys-\(UInt64.random(in: 0...UInt64.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func mode(of path: String) -> UInt32 {
        var info = stat()
        return stat(path, &info) == 0 ? UInt32(info.st_mode & 0o7777) : 0
    }

    @Test func writtenKeyIsOwnerOnlyAndReadsBack() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/platform.key"
        // Even under a permissive umask the file is 0600.
        let previous = umask(0)
        defer { umask(previous) }
        let key = try SecretKey.generate()
        try key.write(toNewFile: path)
        #expect(Self.mode(of: path) == 0o600)
        let read = try SecretKey.read(fromFile: path)
        #expect(read.withUnsafeBytes(Array.init) == key.withUnsafeBytes(Array.init))
        #expect(read.file == path)
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["platform.key"])
    }

    @Test func aKeyFileIsNeverReplaced() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/platform.key"
        let first = try SecretKey.generate()
        try first.write(toNewFile: path)
        #expect(throws: OutputError.self) { try SecretKey.generate().write(toNewFile: path) }
        #expect(try SecretKey.read(fromFile: path).withUnsafeBytes(Array.init) == first.withUnsafeBytes(Array.init))
        let error = #expect(throws: OutputError.self) { try SecretKey.generate().write(toNewFile: folder + "/missing/platform.key") }
        #expect(error?.stage == .creating)
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o620, 0o660, 0o700 | 0o004])
    func keysOthersCanReachAreRefused(mode: Int) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/platform.key"
        try SecretKey.generate().write(toNewFile: path)
        chmod(path, mode_t(mode))
        let error = #expect(throws: KeyFileError.self) { try SecretKey.read(fromFile: path) }
        #expect(error?.problem == .accessibleByOthers(mode: UInt32(0o100000 | mode)))
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test func keyFilesOfAnotherSizeOrKindAreRefused() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for size in [0, 31, 33, 64] {
            let path = folder + "/key-\(size)"
            _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: size), attributes: [.posixPermissions: 0o600])
            let error = #expect(throws: KeyFileError.self) { try SecretKey.read(fromFile: path) }
            #expect(error?.problem == .wrongSize(bytes: size, expected: 32...32))
            #expect(error?.description.contains("exactly 32") == true)
        }
        // A token key may be given another size range.
        let long = folder + "/token.key"
        _ = FileManager.default.createFile(atPath: long, contents: Data(repeating: 9, count: 48), attributes: [.posixPermissions: 0o400])
        #expect(try SecretKey.read(fromFile: long, byteCounts: 32...512).count == 48)
        #expect(throws: KeyFileError.self) { try SecretKey.read(fromFile: long) }
        #expect((#expect(throws: InputError.self) { try SecretKey.read(fromFile: folder + "/none") })?.isMissing == true)
        #expect(throws: InputError.self) { try SecretKey.read(fromFile: folder) }
    }

    /// Nothing that prints a key shows its bytes.
    @Test func aKeyDescribesItsFileNotItsBytes() throws {
        let bytes = (0..<32).map { UInt8($0 * 7 + 3) }
        let key = SecretKey(bytes: bytes, file: "/etc/videowm/platform.key")
        var dumped = ""
        dump(key, to: &dumped)
        let texts = ["\(key)", String(describing: key), String(reflecting: key), dumped, "\([key])"]
        let hexKey = Self.hex(bytes), base64Key = Data(bytes).base64EncodedString()
        for text in texts {
            #expect(!text.contains(hexKey) && !text.contains(base64Key) && !text.contains("\(bytes)"), "\(text)")
        }
        #expect("\(key)" == "the key in /etc/videowm/platform.key")
    }
}
