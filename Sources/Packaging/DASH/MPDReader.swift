/// An MPD that cannot be read, in one line (the exit-code funnel maps it to 65, bad input data).
public struct MPDReadError: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String?
    public var detail: String

    public init(file: String? = nil, detail: String) {
        self.file = file
        self.detail = detail
    }

    public var description: String { (file.map { "\($0): " } ?? "") + "not a readable DASH MPD: " + detail }
}

extension MediaPresentationDescription {
    static let namespace = "urn:mpeg:dash:schema:mpd:2011"

    /// Reads an MPD far enough to list what it offers (`videowm probe`): its Periods, AdaptationSets and
    /// Representations with their attributes, `ContentProtection` descriptors and segment addressing. Static and
    /// dynamic MPDs alike (a dynamic one's timing attributes are not kept); XLink and Period-level addressing are not
    /// followed.
    public init(parsing bytes: [UInt8], file: String? = nil) throws(MPDReadError) {
        func fail(_ detail: String) -> MPDReadError { MPDReadError(file: file, detail: detail) }
        let root: XMLNode
        switch XMLNode.parse(bytes) {
        case .success(let node): root = node
        case .failure(let error): throw fail(error.description)
        }
        guard root.name == "MPD", root.namespace == Self.namespace else {
            throw fail("the root element is <\(root.name)>, not <MPD xmlns=\"\(Self.namespace)\">")
        }
        let ns = Self.namespace
        var periods: [Period] = []
        for periodNode in root.elements("Period", in: ns) {
            var sets: [AdaptationSet] = []
            for (n, setNode) in periodNode.elements("AdaptationSet", in: ns).enumerated() {
                let place = "AdaptationSet[\(n + 1)] (line \(setNode.line))"
                let mimeType = setNode.attribute("mimeType") ?? setNode.elements("Representation", in: ns).first?.attribute("mimeType") ?? ""
                let type = setNode.attribute("contentType").flatMap(ContentType.init(rawValue:))
                    ?? ContentType(rawValue: String(mimeType.prefix { $0 != "/" })) ?? (mimeType.contains("vtt") || mimeType.contains("ttml") ? .text : nil)
                guard let type else { throw fail("\(place): no contentType or mimeType says whether it is video, audio or text") }
                var set = AdaptationSet(id: setNode.attribute("id").flatMap { Int($0) }, contentType: type, mimeType: mimeType,
                                        codecs: setNode.attribute("codecs"), language: setNode.attribute("lang"),
                                        label: setNode.element("Label", in: ns)?.trimmedText,
                                        roles: setNode.elements("Role", in: ns).compactMap { $0.attribute("value") },
                                        segmentAlignment: setNode.attribute("segmentAlignment") == "true",
                                        startWithSAP: setNode.attribute("startWithSAP").flatMap { Int($0) },
                                        contentProtections: setNode.elements("ContentProtection", in: ns).map(Self.contentProtection),
                                        segmentTemplate: try setNode.element("SegmentTemplate", in: ns).map { node throws(MPDReadError) in
                                            try Self.template(node, place: place, fail: fail)
                                        },
                                        representations: [])
                for (r, node) in setNode.elements("Representation", in: ns).enumerated() {
                    let place = "\(place)/Representation[\(r + 1)] (line \(node.line))"
                    guard let id = node.attribute("id") else { throw fail("\(place): no id") }
                    guard let bandwidth = node.attribute("bandwidth").flatMap({ Int($0) }) else { throw fail("\(place): no bandwidth") }
                    var segments: SegmentAddressing?
                    if let template = node.element("SegmentTemplate", in: ns) {
                        segments = .template(try Self.template(template, place: place, fail: fail))
                    } else if let list = node.element("SegmentList", in: ns) {
                        segments = .list(try Self.list(list, place: place, fail: fail))
                    } else if let url = node.element("BaseURL", in: ns)?.trimmedText {
                        segments = .single(url: url)
                    }
                    set.representations.append(Representation(
                        id: id, bandwidth: bandwidth, codecs: node.attribute("codecs"), mimeType: node.attribute("mimeType"),
                        width: node.attribute("width").flatMap { Int($0) }, height: node.attribute("height").flatMap { Int($0) },
                        frameRate: node.attribute("frameRate").flatMap(FrameRate.init(text:)), sampleAspectRatio: node.attribute("sar"),
                        audioSamplingRate: node.attribute("audioSamplingRate").flatMap { Int($0) },
                        audioChannels: node.element("AudioChannelConfiguration", in: ns)?.attribute("value").flatMap { Int($0) },
                        contentProtections: node.elements("ContentProtection", in: ns).map(Self.contentProtection), segments: segments))
                }
                sets.append(set)
            }
            periods.append(Period(id: periodNode.attribute("id"), start: periodNode.attribute("start").flatMap(Self.seconds),
                                  adaptationSets: sets))
        }
        guard !periods.isEmpty else { throw fail("no Period") }
        let duration = root.attribute("mediaPresentationDuration").flatMap(Self.seconds) ?? 0
        self.init(profiles: root.attribute("profiles")?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                  duration: duration, minimumBufferTime: root.attribute("minBufferTime").flatMap(Self.seconds) ?? 0,
                  baseURL: root.element("BaseURL", in: ns)?.trimmedText, periods: periods)
    }

    private static func contentProtection(_ node: XMLNode) -> ContentProtection {
        let pssh = node.element("pssh", in: ContentProtection.cencNamespace)
            .flatMap { Base64.bytes($0.trimmedText) }.flatMap { try? ProtectionSystemHeader(parsing: $0) }
        let licence = node.children.first { $0.name.lowercased() == "laurl" }?.trimmedText
        return ContentProtection(schemeIDURI: node.attribute("schemeIdUri") ?? "", value: node.attribute("value"),
                                 defaultKeyID: node.attribute("default_KID", namespace: ContentProtection.cencNamespace).flatMap { KeyID(text: $0) },
                                 pssh: pssh, licenceURL: licence)
    }

    private static func template(_ node: XMLNode, place: String, fail: (String) -> MPDReadError) throws(MPDReadError) -> SegmentTemplate {
        guard let media = node.attribute("media") else { throw fail("\(place)/SegmentTemplate: no media attribute") }
        return SegmentTemplate(timescale: node.attribute("timescale").flatMap { UInt32($0) } ?? 1, initialization: node.attribute("initialization"),
                               media: media, startNumber: node.attribute("startNumber").flatMap { Int($0) } ?? 1,
                               presentationTimeOffset: node.attribute("presentationTimeOffset").flatMap { UInt64($0) } ?? 0,
                               timeline: try timeline(node, place: place, fail: fail), duration: node.attribute("duration").flatMap { UInt64($0) })
    }

    private static func list(_ node: XMLNode, place: String, fail: (String) -> MPDReadError) throws(MPDReadError) -> SegmentList {
        let ns = namespace
        return SegmentList(timescale: node.attribute("timescale").flatMap { UInt32($0) } ?? 1,
                           initialization: node.element("Initialization", in: ns)?.attribute("sourceURL"),
                           presentationTimeOffset: node.attribute("presentationTimeOffset").flatMap { UInt64($0) } ?? 0,
                           timeline: try timeline(node, place: place, fail: fail), duration: node.attribute("duration").flatMap { UInt64($0) },
                           mediaURLs: node.elements("SegmentURL", in: ns).compactMap { $0.attribute("media") })
    }

    private static func timeline(_ node: XMLNode, place: String, fail: (String) -> MPDReadError) throws(MPDReadError) -> [TimelineEntry] {
        var entries: [TimelineEntry] = []
        for s in node.element("SegmentTimeline", in: namespace)?.elements("S", in: namespace) ?? [] {
            guard let duration = s.attribute("d").flatMap({ UInt64($0) }) else { throw fail("\(place): an S without d (line \(s.line))") }
            let repeats = s.attribute("r").flatMap { Int($0) } ?? 0
            guard repeats >= 0 else { throw fail("\(place): a negative S@r (open-ended repeats are for dynamic MPDs)") }
            entries.append(TimelineEntry(start: s.attribute("t").flatMap { UInt64($0) }, duration: duration, repeatCount: repeats))
        }
        return entries
    }

    /// Seconds of an xs:duration (`PT1H2M3.5S`, `P1DT2H`); years and months are refused (their length varies).
    static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        for character in rest {
            switch character {
            case "T": inTime = true
            case "0"..."9", ".": number.append(character)
            case "D" where !inTime, "H" where inTime, "M" where inTime, "S" where inTime:
                guard let value = Double(number) else { return nil }
                total += value * (character == "D" ? 86_400 : character == "H" ? 3600 : character == "M" ? 60 : 1)
                number = ""
            default: return nil
            }
        }
        return number.isEmpty ? total : nil
    }

    /// One line per Representation: a compact view for tests and logs (`videowm probe` describes more, in MPDProbe).
    public var representationSummaries: [String] {
        periods.flatMap { period in
            period.adaptationSets.flatMap { set in
                set.representations.map { representation in
                    var parts = ["\(set.contentType.rawValue) \(representation.id)"]
                    if let codecs = representation.codecs ?? set.codecs { parts.append(codecs) }
                    if let width = representation.width, let height = representation.height { parts.append("\(width)x\(height)") }
                    if let rate = representation.frameRate { parts.append("\(rate) fps") }
                    if let rate = representation.audioSamplingRate { parts.append("\(rate) Hz") }
                    if let language = set.language { parts.append(language) }
                    parts.append("\(representation.bandwidth / 1000) kb/s")
                    if let count = segmentCount(of: representation, in: set) { parts.append("\(count) segments") }
                    let protection = set.contentProtections + representation.contentProtections
                    if let scheme = protection.first(where: { $0.schemeIDURI == ContentProtection.mp4ProtectionScheme }) {
                        parts.append("encrypted " + (scheme.value ?? "?") + (scheme.defaultKeyID.map { " KID \($0)" } ?? ""))
                    }
                    return parts.joined(separator: ", ")
                }
            }
        }
    }

    /// How many segments a Representation lists, when its addressing says (a timeline, a list, a template's duration).
    public func segmentCount(of representation: Representation, in set: AdaptationSet) -> Int? {
        switch representation.segments ?? set.segmentTemplate.map(SegmentAddressing.template) {
        case .list(let list): return list.mediaURLs.count
        case .single: return 1
        case .template(let template):
            if !template.timeline.isEmpty { return template.timeline.reduce(0) { $0 + $1.repeatCount + 1 } }
            guard let each = template.duration, each > 0 else { return nil }
            return Int((duration * Double(template.timescale) / Double(each)).rounded(.up))
        case nil: return nil
        }
    }
}
