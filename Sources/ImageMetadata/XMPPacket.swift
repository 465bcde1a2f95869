import Foundation

/// An XMP packet (RDF/XML), read from a still and written to its output.
///
/// `safe` never copies the input's packet: it writes a new one holding only the whitelisted
/// properties, so nothing unlisted (GPS, history, editing settings) can slip through. `all`
/// keeps the input's packet minus the properties EXIF also never keeps (orientation,
/// thumbnails, the input's pixel size, a pointer to extended XMP this tool does not carry).
public struct XMPPacket {
    /// The outermost element (`x:xmpmeta`, or `rdf:RDF` in older files).
    let root: XMLElementNode

    enum Namespace {
        static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
        static let dc = "http://purl.org/dc/elements/1.1/"
        static let xmp = "http://ns.adobe.com/xap/1.0/"
        static let xmpNote = "http://ns.adobe.com/xmp/note/"
        static let tiff = "http://ns.adobe.com/tiff/1.0/"
        static let exif = "http://ns.adobe.com/exif/1.0/"
        static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    }

    /// (namespace, name) of the properties `safe` carries over, with the prefix written for each.
    static let safeProperties: [(prefix: String, namespace: String, name: String)] = [
        ("dc", Namespace.dc, "rights"), ("dc", Namespace.dc, "creator"),
        ("xmp", Namespace.xmp, "CreateDate"), ("photoshop", Namespace.photoshop, "DateCreated"),
        ("exif", Namespace.exif, "DateTimeOriginal"),
    ]
    /// Properties `all` removes.
    static let neverKept: [(namespace: String, name: String)] = [
        (Namespace.tiff, "Orientation"), (Namespace.xmp, "Thumbnails"),
        (Namespace.tiff, "ImageWidth"), (Namespace.tiff, "ImageLength"),
        (Namespace.exif, "PixelXDimension"), (Namespace.exif, "PixelYDimension"),
        (Namespace.xmpNote, "HasExtendedXMP"),
    ]

    /// Parses a packet (with or without its `<?xpacket?>` wrapper); nil when it is not
    /// well-formed XML or holds no `rdf:RDF`.
    public init?(_ bytes: [UInt8]) {
        guard let root = XMLElementNode.parse(Data(bytes)),
              root.descendantsAndSelf.contains(where: { $0.is(Namespace.rdf, "RDF") }) else { return nil }
        self.root = root
    }

    private init(root: XMLElementNode) { self.root = root }

    /// A packet with one empty `rdf:Description`.
    static func empty() -> XMPPacket {
        let meta = XMLElementNode(qualifiedName: "x:xmpmeta", attributes: [("xmlns:x", "adobe:ns:meta/")], inheritedScope: [:])
        let rdf = meta.makeChild(prefix: "rdf", namespace: Namespace.rdf, localName: "RDF")
        let description = rdf.makeChild(prefix: "rdf", namespace: Namespace.rdf, localName: "Description", attributes: [("rdf:about", "")])
        rdf.children = [.element(description)]
        meta.children = [.element(rdf)]
        return XMPPacket(root: meta)
    }

    var descriptions: [XMLElementNode] { root.descendantsAndSelf.filter { $0.is(Namespace.rdf, "Description") } }

    /// The packet as UTF-8, wrapped in `<?xpacket?>` markers (writable in place: "w").
    public func serialized() -> [UInt8] {
        Array(("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n" + root.serialized() + "\n<?xpacket end=\"w\"?>").utf8)
    }

    /// The value of a simple or language-alternative property (its `x-default` item, else its
    /// first), or the items of an ordered or unordered array, from any `rdf:Description`.
    func values(_ namespace: String, _ name: String) -> [String] {
        for description in descriptions {
            for (attribute, value) in description.attributes where description.resolve(attribute: attribute) == (namespace, name) {
                return [value]
            }
            for property in description.elementChildren where property.is(namespace, name) {
                let container = property.elementChildren.first { $0.namespace == Namespace.rdf && ["Alt", "Seq", "Bag"].contains($0.localName) }
                guard let container else { return [property.text] }
                let items = container.elementChildren.filter { $0.is(Namespace.rdf, "li") }
                if container.localName == "Alt" {
                    let preferred = items.first { $0.attributes.contains { $0.name == "xml:lang" && $0.value == "x-default" } } ?? items.first
                    return preferred.map { [$0.text] } ?? []
                }
                return items.map(\.text)
            }
        }
        return []
    }

    /// Removes a property wherever it appears, as an attribute or as an element.
    func remove(_ namespace: String, _ name: String) {
        for description in descriptions {
            description.attributes.removeAll { description.resolve(attribute: $0.name) == (namespace, name) }
            description.children.removeAll { child in
                if case .element(let element) = child { element.is(namespace, name) } else { false }
            }
        }
    }

    /// Replaces a property with `values`, written as a language alternative (`dc:rights`), an
    /// ordered array (`dc:creator`) or a simple value, in the first `rdf:Description`.
    func set(prefix: String, _ namespace: String, _ name: String, to values: [String]) {
        remove(namespace, name)
        guard !values.isEmpty, let description = descriptions.first else { return }
        let rdfPrefix = description.prefix
        let property = description.makeChild(prefix: prefix, namespace: namespace, localName: name)
        switch (namespace, name) {
        case (Namespace.dc, "rights"), (Namespace.dc, "title"), (Namespace.dc, "description"):
            let alt = property.makeChild(prefix: rdfPrefix, namespace: Namespace.rdf, localName: "Alt")
            let item = alt.makeChild(prefix: rdfPrefix, namespace: Namespace.rdf, localName: "li", attributes: [("xml:lang", "x-default")])
            item.children = [.text(values[0])]
            alt.children = [.element(item)]
            property.children = [.element(alt)]
        case (Namespace.dc, "creator"):
            let seq = property.makeChild(prefix: rdfPrefix, namespace: Namespace.rdf, localName: "Seq")
            seq.children = values.map { value in
                let item = seq.makeChild(prefix: rdfPrefix, namespace: Namespace.rdf, localName: "li")
                item.children = [.text(value)]
                return .element(item)
            }
            property.children = [.element(seq)]
        default:
            property.children = [.text(values[0])]
        }
        description.children.append(.element(property))
    }

    /// The packet `kept` leads to for an input packet `input` (nil: the input had none), with
    /// `edits` applied; nil when there is nothing to write.
    public static func selected(from input: XMPPacket?, _ kept: MetadataKept, edits: MetadataEdits) -> XMPPacket? {
        let packet: XMPPacket
        switch (kept, input) {
        case (.all, let input?):
            // A fresh parse: the caller's packet is left as it was.
            packet = XMPPacket(input.serialized()) ?? .empty()
            for (namespace, name) in neverKept { packet.remove(namespace, name) }
        case (.safe, let input?):
            packet = .empty()
            for property in safeProperties {
                packet.set(prefix: property.prefix, property.namespace, property.name, to: input.values(property.namespace, property.name))
            }
        default:
            packet = .empty()
        }
        if let copyright = edits.copyright { packet.set(prefix: "dc", Namespace.dc, "rights", to: [copyright]) }
        if let artist = edits.artist { packet.set(prefix: "dc", Namespace.dc, "creator", to: [artist]) }
        let hasProperty = packet.descriptions.contains { description in
            !description.elementChildren.isEmpty || description.attributes.contains { attribute in
                let (namespace, _) = description.resolve(attribute: attribute.name)
                return namespace != Namespace.rdf && !attribute.name.hasPrefix("xmlns")
            }
        }
        return hasProperty ? packet : nil
    }

    /// Copyright and creator, as XMP states them (for tests and notices).
    public var rights: String? { values(Namespace.dc, "rights").first }
    public var creators: [String] { values(Namespace.dc, "creator") }
    /// Whether the packet states an orientation (`tiff:Orientation`).
    public var hasOrientation: Bool { !values(Namespace.tiff, "Orientation").isEmpty }
}
