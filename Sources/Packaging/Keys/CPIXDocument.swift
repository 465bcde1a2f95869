/// Reads a DASH-IF CPIX document (Content Protection Information Exchange Format, versions 2.x): the XML a DRM key
/// service hands a packager.
///
/// What is used: `ContentKeyList/ContentKey` (`kid`, optional `explicitIV`, the key in `Data/Secret/PlainValue`,
/// base64), `DRMSystemList/DRMSystem` (`systemId`, `kid`; `PSSH` — a whole `pssh` box, base64 —,
/// `ContentProtectionData`, `HLSSignalingData playlist="media|master"`, `URIExtXKey`, each base64), and
/// `ContentKeyUsageRuleList/ContentKeyUsageRule` (`kid` with a `VideoFilter` or `AudioFilter`, or
/// `intendedTrackType`) to pick a key per kind of track. Keys encrypted for delivery (`EncryptedValue`) and key
/// periods (rotation) are refused with a line saying so; signatures are not checked.
enum CPIXDocument {
    static let namespace = "urn:dashif:org:cpix"
    static let pskcNamespace = "urn:ietf:params:xml:ns:keyprov:pskc"

    static func parse(_ bytes: [UInt8], file: String) throws(ContentKeyFileError) -> ContentKeySet {
        func malformed(_ detail: String) -> ContentKeyFileError { ContentKeyFileError(file: file, problem: .malformed(detail)) }
        func unusable(_ detail: String) -> ContentKeyFileError { ContentKeyFileError(file: file, problem: .unusable(detail)) }

        let root: XMLNode
        switch XMLNode.parse(bytes) {
        case .success(let node): root = node
        case .failure(let error): throw malformed(error.description)
        }
        guard root.name == "CPIX", root.namespace == namespace else {
            throw malformed("the XML's root is <\(root.name)>, not a CPIX document (<CPIX xmlns=\"\(namespace)\">)")
        }

        var keys: [ContentKey] = []
        for (n, element) in (root.element("ContentKeyList", in: namespace)?.elements("ContentKey", in: namespace) ?? []).enumerated() {
            let place = "ContentKey[\(n + 1)] (line \(element.line))"
            guard let kidText = element.attribute("kid"), let keyID = KeyID(text: kidText) else {
                throw malformed("\(place): the kid attribute is missing or not a UUID")
            }
            var explicitIV: [UInt8]?
            if let ivText = element.attribute("explicitIV") {
                guard let iv = Base64.bytes(ivText), iv.count == 16 else { throw malformed("\(place): explicitIV is not 16 bytes of base64") }
                explicitIV = iv
            }
            guard let secret = element.element("Data", in: namespace)?.element("Secret", in: pskcNamespace) else {
                throw malformed("\(place): no Data/Secret holds the key")
            }
            guard let plain = secret.element("PlainValue", in: pskcNamespace) else {
                if secret.element("EncryptedValue", in: pskcNamespace) != nil {
                    throw unusable("\(place): the key is encrypted for delivery (EncryptedValue); videowm reads keys in the clear only: "
                                   + "ask the key service for PlainValue keys and keep the file owner-only")
                }
                throw malformed("\(place): Data/Secret has no PlainValue")
            }
            guard var key = Base64.bytes(plain.trimmedText) else { throw malformed("\(place): PlainValue is not base64") }
            defer { SecureMemory.wipe(&key) }
            guard key.count == ContentKey.byteCount else {
                throw malformed("\(place): the key has \(key.count) bytes, 16 expected (AES-128)")
            }
            guard !keys.contains(where: { $0.keyID == keyID }) else { throw malformed("\(place): kid \(keyID) appears twice") }
            keys.append(ContentKey(keyID: keyID, bytes: key, explicitIV: explicitIV, file: file))
        }
        guard !keys.isEmpty else { throw unusable("the CPIX document holds no ContentKey") }
        if let periods = root.element("ContentKeyPeriodList", in: namespace), !periods.children.isEmpty {
            throw unusable("the CPIX document has key periods (key rotation), which videowm does not do: one key per track kind")
        }

        var systems: [DRMSystemSignaling] = []
        for (n, element) in (root.element("DRMSystemList", in: namespace)?.elements("DRMSystem", in: namespace) ?? []).enumerated() {
            let place = "DRMSystem[\(n + 1)] (line \(element.line))"
            guard let systemText = element.attribute("systemId"), let systemID = SystemID(text: systemText) else {
                throw malformed("\(place): the systemId attribute is missing or not a UUID")
            }
            guard let kidText = element.attribute("kid"), let keyID = KeyID(text: kidText) else {
                throw malformed("\(place): the kid attribute is missing or not a UUID")
            }
            guard keys.contains(where: { $0.keyID == keyID }) else { throw malformed("\(place): kid \(keyID) names no ContentKey") }
            func decoded(_ name: String) throws(ContentKeyFileError) -> [UInt8]? {
                guard let child = element.element(name, in: namespace) else { return nil }
                guard let bytes = Base64.bytes(child.trimmedText) else { throw malformed("\(place): \(name) is not base64") }
                return bytes
            }
            func text(_ bytes: [UInt8]?, _ name: String) throws(ContentKeyFileError) -> String? {
                guard let bytes else { return nil }
                guard let text = String(validating: bytes, as: UTF8.self) else { throw malformed("\(place): \(name) is not UTF-8 text") }
                return text
            }
            var signaling = DRMSystemSignaling(systemID: systemID, keyID: keyID)
            if let box = try decoded("PSSH") {
                do {
                    signaling.pssh = try ProtectionSystemHeader(parsing: box)
                } catch {
                    throw malformed("\(place): PSSH is not a pssh box (\(error.detail))")
                }
                guard signaling.pssh?.systemID == systemID else { throw malformed("\(place): the PSSH box is another system's") }
            }
            signaling.contentProtectionData = try text(try decoded("ContentProtectionData"), "ContentProtectionData")
            if let markup = signaling.contentProtectionData {
                // It goes into the MPD as is: it must be XML elements, with no prefix the MPD does not declare.
                let wrapped = "<x xmlns=\"urn:mpeg:dash:schema:mpd:2011\" xmlns:cenc=\"\(XMLNamespace.cenc)\" "
                    + "xmlns:mspr=\"\(XMLNamespace.playReady)\">\(markup)</x>"
                if case .failure(let error) = XMLNode.parse(Array(wrapped.utf8)) {
                    throw malformed("\(place): ContentProtectionData is \(error.description)")
                }
            }
            signaling.uriExtXKey = try text(try decoded("URIExtXKey"), "URIExtXKey")
            for hls in element.elements("HLSSignalingData", in: namespace) {
                guard let bytes = Base64.bytes(hls.trimmedText), let line = try text(bytes, "HLSSignalingData") else {
                    throw malformed("\(place): HLSSignalingData is not base64")
                }
                if hls.attribute("playlist") == "master" {
                    signaling.hlsMultivariantPlaylistData = line
                } else {
                    signaling.hlsMediaPlaylistData = line
                }
            }
            systems.append(signaling)
        }

        var byKind: [TrackKind: KeyID] = [:]
        for rule in root.element("ContentKeyUsageRuleList", in: namespace)?.elements("ContentKeyUsageRule", in: namespace) ?? [] {
            guard let kidText = rule.attribute("kid"), let keyID = KeyID(text: kidText), keys.contains(where: { $0.keyID == keyID }) else {
                throw malformed("ContentKeyUsageRule (line \(rule.line)): kid is missing or names no ContentKey")
            }
            let intended = rule.attribute("intendedTrackType")?.uppercased() ?? ""
            if rule.element("VideoFilter", in: namespace) != nil || intended.hasPrefix("SD") || intended.hasPrefix("HD")
                || intended.hasPrefix("UHD") || intended == "VIDEO" {
                byKind[.video] = byKind[.video] ?? keyID
            }
            if rule.element("AudioFilter", in: namespace) != nil || intended == "AUDIO" {
                byKind[.audio] = byKind[.audio] ?? keyID
            }
        }
        return ContentKeySet(keys: keys, drmSystems: systems, keyIDByTrackKind: byKind, file: file)
    }
}
