import Foundation
@testable import Packaging
import Testing

/// `--content-key-file`: a `KID:KEY` line or a DASH-IF CPIX document, refused in one line naming the file (and never
/// showing a key) when malformed, unusable or readable by others.
@Suite("Content key files")
struct ContentKeyFileTests {
    @Test("KID:KEY with 32 hex digits each: the key ID and key, a final line break or CRLF allowed, either case")
    func keyLine() throws {
        for text in ["\(TestKeys.keyIDHex):\(TestKeys.keyHex)", "\(TestKeys.keyIDHex):\(TestKeys.keyHex)\n",
                     "\(TestKeys.keyIDHex.uppercased()):\(TestKeys.keyHex.uppercased())\r\n"] {
            let set = try ContentKeySet.parse(Array(text.utf8), file: "k")
            #expect(set.keys.count == 1)
            #expect(set.keys[0].keyID.hex == TestKeys.keyIDHex)
            #expect(set.keys[0].keyID.uuidString == "01234567-89ab-cdef-0123-456789abcdef")
            #expect(set.keys[0].withUnsafeBytes { Array($0) } == Array(Hex.bytes(TestKeys.keyHex)!))
        }
    }

    @Test("a malformed line is refused with what is wrong, naming the file and never echoing the key", arguments: [
        ("", "empty"),
        ("0123:4567", "hex digits, 32 expected"),
        ("\(TestKeys.keyIDHex)", "expected one line KID:KEY"),
        ("\(TestKeys.keyIDHex):\(TestKeys.keyHex)\nmore", "more than one line"),
        ("\(TestKeys.keyIDHex):\(TestKeys.keyHex.dropLast())", "the key has 31 hex digits"),
        ("\(TestKeys.keyIDHex):zz112233445566778899aabbccddeeff", "the key is not hexadecimal"),
        ("\(TestKeys.keyIDHex):\(TestKeys.keyHex):x", "expected one line KID:KEY"),
    ])
    func malformedLine(text: String, expected: String) throws {
        #expect {
            try ContentKeySet.parse(Array(text.utf8), file: "keys/lecture.key")
        } throws: { error in
            let error = error as? ContentKeyFileError
            let line = error?.description ?? ""
            guard case .malformed = error?.problem else { return false }
            return line.hasPrefix("keys/lecture.key: not a content key file: ") && line.contains(expected)
                && !line.contains("112233445566778899") && !line.contains("\n")
        }
    }

    @Test("the key file's permissions are checked as the token key's: owner-only passes, group or others refused, missing named")
    func permissions() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let line = Array("\(TestKeys.keyIDHex):\(TestKeys.keyHex)\n".utf8)
        let good = try scratch.write("good.key", line, mode: 0o600)
        #expect(try ContentKeySet.read(fromFile: good).keys[0].keyID.hex == TestKeys.keyIDHex)
        for mode: mode_t in [0o640, 0o604, 0o644, 0o660] {
            let loose = try scratch.write("loose.key", line, mode: mode)
            #expect(throws: ContentKeyFileError(file: loose, problem: .accessibleByOthers(mode: UInt32(S_IFREG | mode)))) {
                try ContentKeySet.read(fromFile: loose)
            }
        }
        let loose = try scratch.write("loose.key", line, mode: 0o644)
        let message = (try? ContentKeySet.read(fromFile: loose)).map { _ in "" } ?? "\(ContentKeyFileError(file: loose, problem: .accessibleByOthers(mode: 0o100644)))"
        #expect(message.contains("chmod 600") && message.contains(loose) && message.contains("644"))
        #expect(throws: ContentKeyFileError(file: scratch.path("none.key"), problem: .missing)) {
            try ContentKeySet.read(fromFile: scratch.path("none.key"))
        }
        #expect(throws: ContentKeyFileError(file: scratch.directory, problem: .notARegularFile)) {
            try ContentKeySet.read(fromFile: scratch.directory)
        }
    }

    @Test("a key prints as its key ID and file, never its bytes")
    func keysDoNotPrint() throws {
        let key = try TestKeys.keySet().keys[0]
        for text in [String(describing: key), String(reflecting: key), "\(Mirror(reflecting: key).children.map { "\($0.value)" })"] {
            #expect(!text.lowercased().contains("00112233") && !text.contains("ABEiM0RVZneImaq7zN3u"), "\(text)")
            #expect(text.contains("01234567-89ab-cdef"))
        }
    }

    // MARK: CPIX

    static let videoKID = "0dc3ec4f-7683-548b-81e7-3c64e582e136"
    static let audioKID = "9c9f6e04-5d1c-4d5a-9f6c-2b8a2b3e3f0a"
    /// Base64 of 16 bytes 0x00…0x0F and 0x10…0x1F.
    static let videoKey = "AAECAwQFBgcICQoLDA0ODw=="
    static let audioKey = "EBESExQVFhcYGRobHB0eHw=="

    static func cpix(keys: String? = nil, extra: String = "") -> String {
        let psshBox = ProtectionSystemHeader(systemID: .widevine, keyIDs: [KeyID(text: videoKID)!], data: Array("widevine data".utf8))
        let mpdMarkup = Data("<cenc:pssh>\(Base64.string(psshBox.bytes))</cenc:pssh>".utf8).base64EncodedString()
        let hls = Data("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://key\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"".utf8).base64EncodedString()
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <!-- a comment the reader must skip -->
        <cpix:CPIX contentId="lecture-7" version="2.3" xmlns:cpix="urn:dashif:org:cpix" xmlns:pskc="urn:ietf:params:xml:ns:keyprov:pskc">
          <cpix:ContentKeyList>
        \(keys ?? """
            <cpix:ContentKey kid="\(videoKID)" commonEncryptionScheme="cbcs" explicitIV="ICEiIyQlJicoKSorLC0uLw==">
              <cpix:Data><pskc:Secret><pskc:PlainValue>\(videoKey)</pskc:PlainValue></pskc:Secret></cpix:Data>
            </cpix:ContentKey>
            <cpix:ContentKey kid="\(audioKID)">
              <cpix:Data><pskc:Secret><pskc:PlainValue>
                \(audioKey)
              </pskc:PlainValue></pskc:Secret></cpix:Data>
            </cpix:ContentKey>
        """)
          </cpix:ContentKeyList>
          <cpix:DRMSystemList>
            <cpix:DRMSystem kid="\(videoKID)" systemId="edef8ba9-79d6-4ace-a3c8-27dcd51d21ed">
              <cpix:PSSH>\(Base64.string(psshBox.bytes))</cpix:PSSH>
              <cpix:ContentProtectionData>\(mpdMarkup)</cpix:ContentProtectionData>
              <cpix:HLSSignalingData playlist="media">\(hls)</cpix:HLSSignalingData>
            </cpix:DRMSystem>
          </cpix:DRMSystemList>
          <cpix:ContentKeyUsageRuleList>
            <cpix:ContentKeyUsageRule kid="\(videoKID)"><cpix:VideoFilter/></cpix:ContentKeyUsageRule>
            <cpix:ContentKeyUsageRule kid="\(audioKID)" intendedTrackType="AUDIO"><cpix:AudioFilter/></cpix:ContentKeyUsageRule>
          </cpix:ContentKeyUsageRuleList>
        \(extra)
        </cpix:CPIX>
        """
    }

    @Test("a CPIX document: its keys (base64 PlainValue, explicitIV), a DRM system's PSSH, MPD and HLS signalling, a key per track kind")
    func cpixDocument() throws {
        let set = try ContentKeySet.parse(Array(Self.cpix().utf8), file: "keys.cpix.xml")
        #expect(set.keys.map(\.keyID.uuidString) == [Self.videoKID, Self.audioKID])
        #expect(set.keys[0].withUnsafeBytes { Array($0) } == Array(0..<16))
        #expect(set.keys[1].withUnsafeBytes { Array($0) } == Array(16..<32))
        #expect(set.keys[0].explicitIV == Array(32..<48))
        #expect(set.key(for: .video).keyID.uuidString == Self.videoKID)
        #expect(set.key(for: .audio).keyID.uuidString == Self.audioKID)
        #expect(set.drmSystems.count == 1)
        let widevine = try #require(set.drmSystems.first)
        #expect(widevine.systemID == .widevine && widevine.keyID.uuidString == Self.videoKID)
        #expect(widevine.pssh?.data == Array("widevine data".utf8))
        #expect(widevine.contentProtectionData?.hasPrefix("<cenc:pssh>") == true)
        #expect(widevine.hlsMediaPlaylistData?.hasPrefix("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://key\"") == true)
        // A document with any prefix (or none) for the CPIX namespace reads the same.
        let unprefixed = Self.cpix().replacingOccurrences(of: "cpix:", with: "").replacingOccurrences(of: "xmlns:cpix=", with: "xmlns=")
        #expect(try ContentKeySet.parse(Array(unprefixed.utf8), file: "k").keys.count == 2)
    }

    @Test("a CPIX document that cannot be used says why in one line", arguments: [
        ("<cpix:CPIX xmlns:cpix=\"urn:dashif:org:cpix\"><unclosed></cpix:CPIX>", "not well-formed XML"),
        ("<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\"/>", "not a CPIX document"),
        (cpix(keys: ""), "holds no ContentKey"),
        (cpix(keys: "<cpix:ContentKey kid=\"nope\"><cpix:Data/></cpix:ContentKey>"), "kid attribute is missing or not a UUID"),
        (cpix(keys: "<cpix:ContentKey kid=\"\(videoKID)\"><cpix:Data><pskc:Secret><pskc:PlainValue>AAEC</pskc:PlainValue></pskc:Secret></cpix:Data></cpix:ContentKey>"),
         "the key has 3 bytes, 16 expected"),
        (cpix(keys: "<cpix:ContentKey kid=\"\(videoKID)\"><cpix:Data><pskc:Secret><pskc:PlainValue>@@@</pskc:PlainValue></pskc:Secret></cpix:Data></cpix:ContentKey>"),
         "PlainValue is not base64"),
        (cpix(keys: "<cpix:ContentKey kid=\"\(videoKID)\"><cpix:Data><pskc:Secret><pskc:EncryptedValue/></pskc:Secret></cpix:Data></cpix:ContentKey>"),
         "encrypted for delivery"),
        (cpix(extra: "<cpix:ContentKeyPeriodList><cpix:ContentKeyPeriod id=\"p1\" index=\"1\"/></cpix:ContentKeyPeriodList>"), "key rotation"),
    ])
    func unusableCPIX(text: String, expected: String) throws {
        #expect {
            try ContentKeySet.parse(Array(text.utf8), file: "keys.xml")
        } throws: { error in
            let line = "\(error)"
            return error is ContentKeyFileError && line.hasPrefix("keys.xml: ") && line.contains(expected) && !line.contains("\n")
        }
    }

    @Test("Clear Key licences: the JSON Web Key set for the key IDs a request names, base64url without padding")
    func clearKeyLicence() throws {
        let set = try ContentKeySet.parse(Array(Self.cpix().utf8), file: "k")
        let videoID = ClearKeyLicence.base64URL(KeyID(text: Self.videoKID)!.bytes)
        let request = Array("{\"kids\":[\"\(videoID)\"],\"type\":\"temporary\"}".utf8)
        #expect(ClearKeyLicence.requestedKeyIDs(request) == [KeyID(text: Self.videoKID)!])
        let licence = String(decoding: ClearKeyLicence.response(to: request, keys: set), as: UTF8.self)
        #expect(licence == "{\"keys\":[{\"kty\":\"oct\",\"kid\":\"DcPsT3aDVIuB5zxk5YLhNg\",\"k\":\"AAECAwQFBgcICQoLDA0ODw\"}],\"type\":\"temporary\"}")
        let json = try JSONSerialization.jsonObject(with: Data(licence.utf8)) as? [String: Any]
        #expect((json?["keys"] as? [[String: String]])?.count == 1)
    }
}
