import Foundation

extension MediaPresentationDescription {
    /// The MPD's XML: UTF-8, two-space indents, attributes in a fixed order, so the same values give the same bytes.
    public var xml: String {
        var out = XMLOut()
        out.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        let protections = periods.flatMap { $0.adaptationSets.flatMap { $0.contentProtections + $0.representations.flatMap(\.contentProtections) } }
        var root: [(String, String?)] = [("xmlns", "urn:mpeg:dash:schema:mpd:2011")]
        if protections.contains(where: { $0.defaultKeyID != nil || $0.pssh != nil }) { root.append(("xmlns:cenc", ContentProtection.cencNamespace)) }
        if protections.contains(where: { $0.licenceURL != nil }) { root.append(("xmlns:dashif", ContentProtection.dashIFNamespace)) }
        if protections.contains(where: { $0.additionalXML?.contains("mspr:") == true }) {
            root.append(("xmlns:mspr", ContentProtection.playReadyNamespace))
        }
        root += [("profiles", effectiveProfiles.joined(separator: ",")), ("type", "static"),
                 ("mediaPresentationDuration", Self.xsDuration(duration)), ("minBufferTime", Self.xsDuration(minimumBufferTime))]
        out.open("MPD", root)
        if let baseURL { out.element("BaseURL", text: baseURL) }
        for period in periods {
            out.open("Period", [("id", period.id), ("start", period.start.map(Self.xsDuration))])
            for set in period.adaptationSets { write(set, into: &out) }
            out.close("Period")
        }
        out.close("MPD")
        return out.text
    }

    private func write(_ set: AdaptationSet, into out: inout XMLOut) {
        out.open("AdaptationSet", [("id", set.id.map(String.init)), ("contentType", set.contentType.rawValue), ("mimeType", set.mimeType),
                                   ("codecs", set.codecs), ("lang", set.language), ("segmentAlignment", set.segmentAlignment ? "true" : nil),
                                   ("startWithSAP", set.startWithSAP.map(String.init))])
        if let label = set.label { out.element("Label", text: label) }
        for role in set.roles { out.element("Role", [("schemeIdUri", "urn:mpeg:dash:role:2011"), ("value", role)]) }
        for protection in set.contentProtections { write(protection, into: &out) }
        if let template = set.segmentTemplate { write(template, into: &out) }
        for representation in set.representations {
            out.open("Representation", [("id", representation.id), ("bandwidth", String(representation.bandwidth)),
                                        ("codecs", representation.codecs), ("mimeType", representation.mimeType),
                                        ("width", representation.width.map(String.init)), ("height", representation.height.map(String.init)),
                                        ("frameRate", representation.frameRate?.description), ("sar", representation.sampleAspectRatio),
                                        ("audioSamplingRate", representation.audioSamplingRate.map(String.init))])
            if let channels = representation.audioChannels {
                out.element("AudioChannelConfiguration", [("schemeIdUri", "urn:mpeg:dash:23003:3:audio_channel_configuration:2011"),
                                                          ("value", String(channels))])
            }
            for protection in representation.contentProtections { write(protection, into: &out) }
            switch representation.segments {
            case .template(let template): write(template, into: &out)
            case .list(let list): write(list, into: &out)
            case .single(let url): out.element("BaseURL", text: url)
            case nil: break
            }
            out.close("Representation")
        }
        out.close("AdaptationSet")
    }

    private func write(_ protection: ContentProtection, into out: inout XMLOut) {
        let attributes: [(String, String?)] = [("schemeIdUri", protection.schemeIDURI), ("value", protection.value),
                                               ("cenc:default_KID", protection.defaultKeyID?.uuidString)]
        guard protection.pssh != nil || protection.licenceURL != nil || protection.additionalXML != nil else {
            out.element("ContentProtection", attributes)
            return
        }
        out.open("ContentProtection", attributes)
        if let pssh = protection.pssh { out.element("cenc:pssh", text: Base64.string(pssh.bytes)) }
        if let url = protection.licenceURL { out.element("dashif:Laurl", [("Lic_type", "EME-1.0")], text: url) }
        if let xml = protection.additionalXML { out.raw(xml) }
        out.close("ContentProtection")
    }

    private func write(_ template: SegmentTemplate, into out: inout XMLOut) {
        let attributes: [(String, String?)] = [("timescale", String(template.timescale)), ("initialization", template.initialization),
                                               ("media", template.media), ("startNumber", String(template.startNumber)),
                                               ("duration", template.duration.map(String.init)),
                                               ("presentationTimeOffset", template.presentationTimeOffset == 0 ? nil : String(template.presentationTimeOffset))]
        guard !template.timeline.isEmpty else {
            out.element("SegmentTemplate", attributes)
            return
        }
        out.open("SegmentTemplate", attributes)
        write(template.timeline, into: &out)
        out.close("SegmentTemplate")
    }

    private func write(_ list: SegmentList, into out: inout XMLOut) {
        out.open("SegmentList", [("timescale", String(list.timescale)), ("duration", list.duration.map(String.init)),
                                 ("presentationTimeOffset", list.presentationTimeOffset == 0 ? nil : String(list.presentationTimeOffset))])
        if let initialization = list.initialization { out.element("Initialization", [("sourceURL", initialization)]) }
        if !list.timeline.isEmpty { write(list.timeline, into: &out) }
        for url in list.mediaURLs { out.element("SegmentURL", [("media", url)]) }
        out.close("SegmentList")
    }

    private func write(_ timeline: [TimelineEntry], into out: inout XMLOut) {
        out.open("SegmentTimeline", [])
        for entry in timeline {
            out.element("S", [("t", entry.start.map(String.init)), ("d", String(entry.duration)),
                              ("r", entry.repeatCount == 0 ? nil : String(entry.repeatCount))])
        }
        out.close("SegmentTimeline")
    }

    /// An xs:duration of seconds, to the millisecond (`PT12.345S`), rounded up so a player never stops a frame early.
    static func xsDuration(_ seconds: Double) -> String {
        // Less a microsecond first: 0.30000000000000004 s is 300 ms, not 301.
        let milliseconds = Int((seconds * 1000 - 1e-6).rounded(.up))
        let whole = milliseconds / 1000
        let fraction = milliseconds % 1000
        let digits = String(fraction)
        return fraction == 0 ? "PT\(whole)S" : "PT\(whole).\(String(repeating: "0", count: 3 - digits.count) + digits)S"
    }
}

/// Builds indented XML text.
private struct XMLOut {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ content: String) { text += String(repeating: "  ", count: depth) + content + "\n" }

    private func start(_ name: String, _ attributes: [(String, String?)]) -> String {
        "<" + name + attributes.compactMap { key, value in value.map { " \(key)=\"\(XMLText.escaped($0))\"" } }.joined()
    }

    mutating func open(_ name: String, _ attributes: [(String, String?)]) {
        line(start(name, attributes) + ">")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    mutating func element(_ name: String, _ attributes: [(String, String?)] = [], text content: String? = nil) {
        if let content {
            line(start(name, attributes) + ">" + XMLText.escaped(content) + "</\(name)>")
        } else {
            line(start(name, attributes) + "/>")
        }
    }

    /// Markup given by a key service, one line per line of it.
    mutating func raw(_ markup: String) {
        for piece in markup.split(whereSeparator: \.isNewline) where !piece.trimmingCharacters(in: .whitespaces).isEmpty {
            line(piece.trimmingCharacters(in: .whitespaces))
        }
    }
}
