import Foundation

/// A DASH `ContentProtection` descriptor (ISO/IEC 23009-1 §5.8.4.1, ISO/IEC 23001-7 §11, DASH-IF IOP §7): either
/// the scheme-wide one (`urn:mpeg:dash:mp4protection:2011`, its value the scheme, with `cenc:default_KID`) or one per
/// DRM system (`urn:uuid:<SystemID>`, with its `cenc:pssh` and licence URL).
public struct ContentProtection: Equatable, Sendable {
    public var schemeIDURI: String
    public var value: String?
    /// `cenc:default_KID`.
    public var defaultKeyID: KeyID?
    /// `cenc:pssh`: the whole box, base64.
    public var pssh: ProtectionSystemHeader?
    /// `dashif:Laurl`: where a Clear Key (or other) licence is requested.
    public var licenceURL: String?
    /// Elements inside the descriptor written as given (a CPIX `ContentProtectionData`: the key service's own).
    public var additionalXML: String?

    public init(schemeIDURI: String, value: String? = nil, defaultKeyID: KeyID? = nil, pssh: ProtectionSystemHeader? = nil,
                licenceURL: String? = nil, additionalXML: String? = nil) {
        self.schemeIDURI = schemeIDURI
        self.value = value
        self.defaultKeyID = defaultKeyID
        self.pssh = pssh
        self.licenceURL = licenceURL
        self.additionalXML = additionalXML
    }

    public static let mp4ProtectionScheme = "urn:mpeg:dash:mp4protection:2011"
    public static let cencNamespace = XMLNamespace.cenc
    public static let dashIFNamespace = "https://dashif.org/CPS"
    /// PlayReady's MPD elements (`mspr:pro`), which CPIX documents for PlayReady carry.
    public static let playReadyNamespace = XMLNamespace.playReady

    /// The scheme-wide descriptor: `value="cenc"` or `"cbcs"`, the track's key ID.
    public static func mp4Protection(scheme: EncryptionScheme, keyID: KeyID) -> ContentProtection {
        ContentProtection(schemeIDURI: mp4ProtectionScheme, value: scheme.rawValue, defaultKeyID: keyID)
    }

    /// W3C Clear Key (DASH-IF's `ClearKey1.0`): its `pssh` lists the key IDs; the licence URL answers a JSON Web Key set.
    public static func clearKey(keyIDs: [KeyID], licenceURL: String?) -> ContentProtection {
        ContentProtection(schemeIDURI: "urn:uuid:\(SystemID.clearKey.uuidString)", value: "ClearKey1.0",
                          pssh: .clearKey(keyIDs: keyIDs), licenceURL: licenceURL)
    }

    /// A DRM system as a CPIX document describes it: its `pssh`, and its `ContentProtectionData` as given.
    public static func system(_ signaling: DRMSystemSignaling) -> ContentProtection {
        ContentProtection(schemeIDURI: "urn:uuid:\(signaling.systemID.uuidString)", defaultKeyID: signaling.keyID,
                          pssh: signaling.pssh, additionalXML: signaling.contentProtectionData)
    }

    /// The descriptors of an AdaptationSet encrypted with `keyID`: the scheme's, Clear Key's, then every DRM system a
    /// CPIX document gives for that key.
    public static func descriptors(scheme: EncryptionScheme, keyID: KeyID, keys: ContentKeySet, clearKeyLicenceURL: String?) -> [ContentProtection] {
        [mp4Protection(scheme: scheme, keyID: keyID), clearKey(keyIDs: [keyID], licenceURL: clearKeyLicenceURL)]
            + keys.drmSystems.filter { $0.keyID == keyID && $0.systemID != .clearKey }.map(system)
    }

    /// The system a `urn:uuid:` scheme names, if it does.
    public var systemID: SystemID? {
        schemeIDURI.lowercased().hasPrefix("urn:uuid:") ? SystemID(text: schemeIDURI.dropFirst(9)) : nil
    }
}

/// A W3C Clear Key licence (EME §9.1.4): the JSON Web Key set a browser's Clear Key CDM takes, answering its licence
/// request (`{"kids": [...], "type": "temporary"}`). Key IDs and keys are base64url without padding.
public enum ClearKeyLicence {
    /// The licence for the keys of `keys` whose IDs `request` asks for (all of them when it names none it knows, so a
    /// request for a key the set lacks gets an empty set: the CDM then reports the key missing).
    public static func response(to request: [UInt8], keys: ContentKeySet) -> [UInt8] {
        let requested = requestedKeyIDs(request)
        let chosen = keys.keys.filter { requested?.contains($0.keyID) ?? true }
        let entries = chosen.map { key in
            let k = key.withUnsafeBytes { base64URL(Array($0)) }
            return "{\"kty\":\"oct\",\"kid\":\"\(base64URL(key.keyID.bytes))\",\"k\":\"\(k)\"}"
        }
        return Array("{\"keys\":[\(entries.joined(separator: ","))],\"type\":\"temporary\"}".utf8)
    }

    /// The key IDs a licence request names (`{"kids": [base64url…]}`), nil when it is not one.
    public static func requestedKeyIDs(_ request: [UInt8]) -> [KeyID]? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(request)) as? [String: Any],
              let kids = object["kids"] as? [String] else { return nil }
        var ids: [KeyID] = []
        for kid in kids {
            guard let bytes = fromBase64URL(kid), let id = KeyID(bytes: bytes) else { return nil }
            ids.append(id)
        }
        return ids
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64.string(bytes).replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func fromBase64URL(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Base64.bytes(standard)
    }
}
