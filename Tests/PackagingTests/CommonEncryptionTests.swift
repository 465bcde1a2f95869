import Foundation
@testable import Packaging
import Testing

/// Common Encryption of FFmpeg-made fragmented MP4 (H.264 with B-frames, AAC): the boxes, the bytes each scheme
/// encrypts, deterministic IVs, a byte-exact round trip through our decryptor (which reads IVs through saiz/saio),
/// and FFmpeg's own decryption (cenc and cbcs) giving back every frame.
@Suite("Common Encryption")
struct CommonEncryptionTests {
    struct Encrypted {
        var clear: (initialization: [UInt8], segments: [[UInt8]])
        var protected: ProtectedInitialization
        var segments: [[UInt8]]
    }

    static func encrypt(_ scheme: EncryptionScheme, _ scratch: Scratch, keys: ContentKeySet? = nil, x264: String = "bframes=2") throws -> Encrypted {
        let clear = try scratch.fragmentedClip(x264: x264)
        let protected = try CommonEncryption(scheme: scheme, keys: keys ?? TestKeys.keySet()).protect(initialization: clear.initialization)
        return Encrypted(clear: clear, protected: protected, segments: try clear.segments.map { try protected.encrypt(segment: $0) })
    }

    /// The sample entries (type and children) of each track of an initialization segment, and its moov's pssh boxes.
    static func entries(_ initialization: [UInt8]) throws -> (entries: [Box], pssh: [ProtectionSystemHeader]) {
        let moov = try #require(try Box.parse(initialization).first { $0.type == "moov" })
        let entries = moov.children("trak").compactMap { $0.descendant(["mdia", "minf", "stbl", "stsd"])?.children.first }
        return (entries, try moov.children("pssh").map { try ProtectionSystemHeader(parsing: $0.bytes) })
    }

    @Test("the initialization segment: encv/enca with sinf (frma, schm, schi/tenc as each scheme says), Clear Key and common pssh in moov",
          arguments: EncryptionScheme.allCases)
    func initializationBoxes(scheme: EncryptionScheme) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let clear = try scratch.fragmentedClip(seconds: 1)
        let protected = try CommonEncryption(scheme: scheme, keys: TestKeys.keySet()).protect(initialization: clear.initialization)
        let (entries, pssh) = try Self.entries(protected.initialization)
        let (clearEntries, _) = try Self.entries(clear.initialization)
        #expect(entries.map(\.type) == ["encv", "enca"])
        for (entry, original) in zip(entries, clearEntries) {
            // The entry's own fields and boxes are kept; sinf comes last.
            #expect(entry.fields == original.fields && Array(entry.children.dropLast()) == original.children)
            let sinf = try #require(entry.children.last)
            #expect(sinf.type == "sinf" && sinf.children.map(\.type) == ["frma", "schm", "schi"])
            #expect(sinf.child("frma")?.fields == original.type.bytes)
            #expect(sinf.child("schm")?.fields == [0, 0, 0, 0] + scheme.schemeType.bytes + [0, 1, 0, 0])
            let tenc = try #require(sinf.descendant(["schi", "tenc"]))
            let kid = Array(Hex.bytes(TestKeys.keyIDHex)!)
            switch scheme {
            case .cenc:
                // Version 0, protected, 16-byte per-sample IVs, the KID.
                #expect(tenc.fields == [0, 0, 0, 0, 0, 0, 1, 16] + kid)
            case .cbcs:
                // Version 1, the 1:9 pattern for video and whole blocks for audio, constant 16-byte IV.
                let pattern: UInt8 = entry.type == "encv" ? 0x19 : 0x00
                #expect(Array(tenc.fields.prefix(24)) == [1, 0, 0, 0, 0, pattern, 1, 0] + kid)
                #expect(tenc.fields.count == 24 + 17 && tenc.fields[24] == 16)
            }
        }
        #expect(pssh.map(\.systemID) == [.clearKey, .commonSystem])
        #expect(pssh.allSatisfy { $0.keyIDs.map(\.hex) == [TestKeys.keyIDHex] && $0.data.isEmpty })
        // ffprobe reads the encrypted initialization segment's tracks as the original codecs.
        try scratch.write("init.mp4", protected.initialization)
        let probe = try scratch.run("ffprobe", ["-v", "error", "-show_entries", "stream=codec_name", "-of", "csv=p=0", "init.mp4"])
        #expect(probe.text.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) } == ["h264", "aac"], "\(probe.errorText)")
    }

    @Test("decrypting what was encrypted gives back the clear bytes exactly; encrypting twice gives the same bytes", arguments: EncryptionScheme.allCases)
    func roundTrip(scheme: EncryptionScheme) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let encrypted = try Self.encrypt(scheme, scratch)
        #expect(encrypted.clear.segments.count == 2)
        #expect(try CommonDecryption.clearInitialization(encrypted.protected.initialization) == encrypted.clear.initialization)
        let decryption = try CommonDecryption(initialization: encrypted.protected.initialization, keys: TestKeys.keySet())
        for (clear, protected) in zip(encrypted.clear.segments, encrypted.segments) {
            #expect(protected != clear && protected.count > clear.count)
            #expect(try decryption.decrypt(segment: protected) == clear)
            #expect(try encrypted.protected.encrypt(segment: clear) == protected)
        }
        // Another key, another encryption; the wrong key decrypts to other bytes.
        let other = try Self.encrypt(scheme, scratch, keys: TestKeys.keySet(key: TestKeys.otherKeyHex))
        #expect(other.segments[0] != encrypted.segments[0])
        let wrong = try CommonDecryption(initialization: encrypted.protected.initialization, keys: TestKeys.keySet(key: TestKeys.otherKeyHex))
        #expect(try wrong.decrypt(segment: encrypted.segments[0]) != encrypted.clear.segments[0])
    }

    /// Every sample of the encrypted segments with its senc entry: (track ID, clear bytes, encrypted bytes, IV, subsamples).
    static func samples(_ encrypted: Encrypted) throws -> [(track: UInt32, clear: ArraySlice<UInt8>, encrypted: ArraySlice<UInt8>, iv: [UInt8], subsamples: [Subsample])] {
        var out: [(UInt32, ArraySlice<UInt8>, ArraySlice<UInt8>, [UInt8], [Subsample])] = []
        let tracks = encrypted.protected.tracks
        for (clear, protected) in zip(encrypted.clear.segments, encrypted.segments) {
            let clearFragments = try MovieFragment.fragments(in: clear, tracks: tracks)
            let fragments = try MovieFragment.fragments(in: protected, tracks: tracks)
            for (clearFragment, fragment) in zip(clearFragments, fragments) {
                for (clearTraf, traf) in zip(clearFragment.trackFragments, fragment.trackFragments) {
                    let protection = try #require(tracks.first { $0.trackID == traf.trackID }?.protection)
                    let senc = try #require(fragment.moof.children[traf.childIndex].child("senc"))
                    var reader = ByteReader(senc.fields, location: "senc")
                    try reader.skip(4)
                    #expect(Int(try reader.u32()) == traf.samples.count)
                    for (clearSample, sample) in zip(clearTraf.samples, traf.samples) {
                        let iv = try reader.bytes(protection.perSampleIVSize)
                        var subsamples: [Subsample] = []
                        if senc.flags & 2 != 0 {
                            for _ in 0..<Int(try reader.u16()) { subsamples.append(Subsample(clearBytes: try reader.u16(), protectedBytes: try reader.u32())) }
                        }
                        out.append((traf.trackID, clear[clearSample.range], protected[sample.range], iv, subsamples))
                    }
                }
            }
        }
        return out
    }

    @Test("cenc: video by subsample — NAL header and slice header clear, whole 16-byte blocks protected, other NAL units clear —, audio whole; each sample its own IV")
    func cencBytes() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let samples = try Self.samples(try Self.encrypt(.cenc, scratch))
        let video = samples.filter { $0.track == 1 }
        let audio = samples.filter { $0.track == 2 }
        #expect(video.count == 50 && audio.count > 80)
        for sample in video {
            #expect(!sample.subsamples.isEmpty)
            var at = 0
            for subsample in sample.subsamples {
                // Length prefix (4), NAL header (1) and at least two bytes of slice header stay clear.
                #expect(subsample.protectedBytes % 16 == 0)
                #expect(subsample.protectedBytes == 0 || subsample.clearBytes >= 7)
                let clearRange = at..<at + Int(subsample.clearBytes)
                let protectedRange = clearRange.upperBound..<clearRange.upperBound + Int(subsample.protectedBytes)
                #expect(Array(sample.clear.dropFirst(clearRange.lowerBound).prefix(clearRange.count)) == Array(sample.encrypted.dropFirst(clearRange.lowerBound).prefix(clearRange.count)))
                let before = Array(sample.clear.dropFirst(protectedRange.lowerBound).prefix(protectedRange.count))
                let after = Array(sample.encrypted.dropFirst(protectedRange.lowerBound).prefix(protectedRange.count))
                #expect(before.isEmpty || before != after)
                at = protectedRange.upperBound
            }
            #expect(at == sample.clear.count)
        }
        // The IDR pictures' first subsample holds the SPS/PPS/SEI units clear before the slice.
        #expect(video[0].subsamples[0].clearBytes > 20)
        for sample in audio {
            #expect(sample.subsamples.isEmpty && sample.clear != sample.encrypted)
        }
        let ivs = samples.map(\.iv)
        #expect(Set(ivs).count == ivs.count, "every sample has its own IV")
        #expect(ivs.allSatisfy { $0.count == 16 && $0[8] & 0x80 == 0 })
    }

    @Test("cbcs: slice data by the 1:9 pattern from the first byte after the slice header (partial blocks clear), audio every whole block, one constant IV")
    func cbcsBytes() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let samples = try Self.samples(try Self.encrypt(.cbcs, scratch))
        for sample in samples {
            #expect(sample.iv.isEmpty)
            let clear = Array(sample.clear), encrypted = Array(sample.encrypted)
            func blockChanged(_ start: Int) -> Bool { clear[start..<start + 16] != encrypted[start..<start + 16] }
            if sample.track == 2 {
                #expect(sample.subsamples.isEmpty)
                let whole = clear.count / 16 * 16
                #expect((0..<whole / 16).allSatisfy { blockChanged($0 * 16) })
                #expect(clear[whole...] == encrypted[whole...])
                continue
            }
            var at = 0
            for subsample in sample.subsamples {
                #expect(clear[at..<at + Int(subsample.clearBytes)] == encrypted[at..<at + Int(subsample.clearBytes)])
                at += Int(subsample.clearBytes)
                let protected = Int(subsample.protectedBytes)
                for block in 0..<(protected + 15) / 16 {
                    let start = at + block * 16
                    let isWhole = start + 16 <= at + protected
                    if isWhole && block % 10 == 0 {
                        #expect(blockChanged(start), "block \(block) of a \(protected)-byte range is encrypted")
                    } else {
                        let end = min(start + 16, at + protected)
                        #expect(clear[start..<end] == encrypted[start..<end], "block \(block) of a \(protected)-byte range is clear")
                    }
                }
                at += protected
            }
            #expect(at == clear.count)
        }
    }

    /// Writes a presentation's files and an MPD for them (our writer; one AdaptationSet per track) into the folder;
    /// returns the MPD's name.
    static func writePresentation(_ name: String, video: (initialization: [UInt8], segments: [[UInt8]]),
                                  audio: (initialization: [UInt8], segments: [[UInt8]]), scheme: EncryptionScheme?, in scratch: Scratch) throws -> String {
        var sets: [AdaptationSet] = []
        for (kind, files) in [(ContentType.video, video), (.audio, audio)] {
            let prefix = "\(name)-\(kind.rawValue)"
            try scratch.write("\(prefix)-init.mp4", files.initialization)
            var urls: [String] = []
            for (k, segment) in files.segments.enumerated() {
                urls.append("\(prefix)-\(k).m4s")
                try scratch.write(urls[k], segment)
            }
            let tracks = try TrackDescription.tracks(ofInitialization: files.initialization)
            let timings = try files.segments.map { try #require(try SegmentTiming.read(segment: $0, initialization: tracks, trackID: tracks[0].trackID)) }
            let list = SegmentList(timescale: tracks[0].timescale, initialization: "\(prefix)-init.mp4", timeline: SegmentTiming.timeline(timings), mediaURLs: urls)
            let protection = scheme.map { [ContentProtection.mp4Protection(scheme: $0, keyID: KeyID(text: TestKeys.keyIDHex)!)] } ?? []
            sets.append(AdaptationSet(id: sets.count, contentType: kind, mimeType: "\(kind.rawValue)/mp4", contentProtections: protection,
                                      representations: [Representation(id: kind.rawValue, bandwidth: 100_000, codecs: kind == .video ? "avc1.64000c" : "mp4a.40.2",
                                                                       segments: .list(list))]))
        }
        let mpd = MediaPresentationDescription(duration: 2, periods: [Period(adaptationSets: sets)])
        try scratch.write("\(name).mpd", Array(mpd.xml.utf8))
        return scratch.path("\(name).mpd")
    }

    @Test("FFmpeg decrypts our segments to every frame and audio frame of the clear presentation: an MPD through the dash demuxer (-cenc_decryption_key, senc), each segment alone through the mov demuxer (-decryption_key, saiz/saio)",
          arguments: EncryptionScheme.allCases)
    func ffmpegDecrypts(scheme: EncryptionScheme) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let video = try scratch.fragmentedClip(audio: false)
        let audio = try scratch.fragmentedAudio()
        let encryption = CommonEncryption(scheme: scheme, keys: try TestKeys.keySet())
        let protectedVideo = try encryption.protect(initialization: video.initialization)
        let protectedAudio = try encryption.protect(initialization: audio.initialization)
        let encryptedVideo = (protectedVideo.initialization, try video.segments.map { try protectedVideo.encrypt(segment: $0) })
        let encryptedAudio = (protectedAudio.initialization, try audio.segments.map { try protectedAudio.encrypt(segment: $0) })
        #expect(video.segments.count == 2 && audio.segments.count >= 2)

        let clearMPD = try Self.writePresentation("clear", video: video, audio: audio, scheme: nil, in: scratch)
        let encryptedMPD = try Self.writePresentation("encrypted", video: encryptedVideo, audio: encryptedAudio, scheme: scheme, in: scratch)
        for stream in ["v:0", "a:0"] {
            let clear = try scratch.frameChecksums(clearMPD, stream: stream)
            #expect(clear.status == 0 && clear.errors.isEmpty && clear.lines.count >= 50, "\(clear.errors)")
            let decrypted = try scratch.frameChecksums(encryptedMPD, stream: stream, before: ["-cenc_decryption_key", TestKeys.keyHex])
            #expect(decrypted.status == 0 && decrypted.errors.isEmpty, "\(decrypted.errors)")
            #expect(decrypted.lines == clear.lines, "\(stream): the decrypted frames differ from the clear ones")
            // Without the key, or with another, nothing of the clear pictures or sound (at most a frame of silence).
            for attempt in [[], ["-cenc_decryption_key", TestKeys.otherKeyHex]] {
                let other = try scratch.frameChecksums(encryptedMPD, stream: stream, before: attempt)
                #expect(Set(other.lines).intersection(clear.lines).count <= 1, "\(stream) \(attempt)")
            }
        }
        // Each segment alone, read through saiz/saio by the mov demuxer. (FFmpeg 5.1 loses track of which fragment a
        // packet came from in a seekable file of several fragments, its own encrypted output included: one at a time.)
        for (k, segment) in encryptedVideo.1.enumerated() {
            try scratch.write("clear-one.mp4", video.initialization + video.segments[k])
            try scratch.write("encrypted-one.mp4", encryptedVideo.0 + segment)
            let clear = try scratch.frameChecksums(scratch.path("clear-one.mp4"))
            let decrypted = try scratch.frameChecksums(scratch.path("encrypted-one.mp4"), before: ["-decryption_key", TestKeys.keyHex])
            #expect(decrypted.status == 0 && decrypted.errors.isEmpty && decrypted.lines == clear.lines && clear.lines.count == 25, "\(decrypted.errors)")
        }
    }

    @Test("a CPIX key set: video and audio each take their usage rule's key, cbcs its explicitIV, the CPIX system's pssh joins Clear Key's; decrypts with the set")
    func cpixKeys() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let keys = try ContentKeySet.parse(Array(ContentKeyFileTests.cpix().utf8), file: "keys.xml")
        let encrypted = try Self.encrypt(.cbcs, scratch, keys: keys)
        let ids = encrypted.protected.tracks.map { $0.protection?.keyID.uuidString }
        #expect(ids == [ContentKeyFileTests.videoKID, ContentKeyFileTests.audioKID])
        #expect(encrypted.protected.tracks[0].protection?.constantIV == Array(32..<48))
        let (_, pssh) = try Self.entries(encrypted.protected.initialization)
        #expect(pssh.map(\.systemID) == [.clearKey, .commonSystem, .widevine])
        #expect(pssh[0].keyIDs.map(\.uuidString) == [ContentKeyFileTests.videoKID, ContentKeyFileTests.audioKID])
        let decryption = try CommonDecryption(initialization: encrypted.protected.initialization, keys: keys)
        for (clear, protected) in zip(encrypted.clear.segments, encrypted.segments) {
            #expect(try decryption.decrypt(segment: protected) == clear)
        }
        // The MPD's descriptors for the video key: the scheme's, Clear Key's, then Widevine's with the CPIX markup.
        let descriptors = ContentProtection.descriptors(scheme: .cbcs, keyID: keys.keys[0].keyID, keys: keys, clearKeyLicenceURL: nil)
        #expect(descriptors.map(\.schemeIDURI) == ["urn:mpeg:dash:mp4protection:2011", "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e",
                                                    "urn:uuid:edef8ba9-79d6-4ace-a3c8-27dcd51d21ed"])
        let xml = MediaPresentationDescription(duration: 1, periods: [Period(adaptationSets: [
            AdaptationSet(contentType: .video, mimeType: "video/mp4", contentProtections: descriptors, representations: [Representation(id: "v", bandwidth: 1)]),
        ])]).xml
        #expect(xml.contains("<cenc:pssh>") && (try? MediaPresentationDescription(parsing: Array(xml.utf8))) != nil)
        // A key set without the audio key cannot decrypt this init.
        #expect(throws: MP4StructureError.self) { try CommonDecryption(initialization: encrypted.protected.initialization, keys: TestKeys.keySet()) }
    }

    @Test("what cannot be encrypted is refused in one line: HEVC, an encrypted init or segment, bytes that are not fMP4")
    func refusals() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try scratch.ffmpeg(["-f", "lavfi", "-i", "testsrc2=size=64x64:rate=10:duration=0.5", "-c:v", "libx265", "-preset", "ultrafast",
                            "-x265-params", "log-level=none", "-tag:v", "hvc1", "-movflags", "+frag_keyframe+empty_moov+default_base_moof", "hevc.mp4"])
        let hevc = try Scratch.split(try scratch.read("hevc.mp4"))
        #expect {
            try CommonEncryption(scheme: .cenc, keys: TestKeys.keySet()).protect(initialization: hevc.initialization)
        } throws: { error in
            (error as? MP4StructureError)?.kind == .unsupported && "\(error)".contains("hvc1 video")
        }
        let encrypted = try Self.encrypt(.cenc, scratch)
        #expect(throws: MP4StructureError.self) { try CommonEncryption(scheme: .cbcs, keys: TestKeys.keySet()).protect(initialization: encrypted.protected.initialization) }
        #expect { try encrypted.protected.encrypt(segment: encrypted.segments[0]) } throws: { "\($0)".contains("encrypted already") }
        #expect { try encrypted.protected.encrypt(segment: Array("not a segment at all".utf8)) } throws: { error in
            (error as? MP4StructureError)?.kind == .malformed
        }
        var truncated = encrypted.clear.segments[0]
        truncated.removeLast(100)
        #expect { try encrypted.protected.encrypt(segment: truncated) } throws: { error in (error as? MP4StructureError)?.kind == .malformed }
    }
}
