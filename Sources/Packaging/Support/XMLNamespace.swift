/// XML namespaces DASH-IF's documents share: an MPD's `ContentProtection` markup, and the same markup
/// a CPIX document carries for each DRM system.
enum XMLNamespace {
    /// ISO/IEC 23001-7's `cenc:` (`default_KID`, `pssh`).
    static let cenc = "urn:mpeg:cenc:2013"
    /// PlayReady's `mspr:` (its `pro` header object).
    static let playReady = "urn:microsoft:playready"
}
