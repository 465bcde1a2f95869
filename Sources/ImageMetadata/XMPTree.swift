import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML element of an XMP packet, parsed just far enough to find, drop and add properties by
/// namespace and name, and to write the rest back out unchanged in meaning.
///
/// Names keep the prefixes the file used; each element knows the prefix bindings in scope, so a
/// property is matched by its namespace URI, not by the prefix a writer happened to choose.
/// Comments and processing instructions inside the packet are not kept.
final class XMLElementNode {
    enum Child {
        case element(XMLElementNode)
        case text(String)
    }

    let qualifiedName: String
    var attributes: [(name: String, value: String)]
    var children: [Child] = []
    /// Prefix → namespace URI, this element's declarations included ("" is the default namespace).
    let scope: [String: String]

    init(qualifiedName: String, attributes: [(name: String, value: String)], inheritedScope: [String: String]) {
        self.qualifiedName = qualifiedName
        self.attributes = attributes
        var scope = inheritedScope
        for (name, value) in attributes {
            if name == "xmlns" { scope[""] = value }
            if name.hasPrefix("xmlns:") { scope[String(name.dropFirst(6))] = value }
        }
        self.scope = scope
    }

    var prefix: String { qualifiedName.firstIndex(of: ":").map { String(qualifiedName[..<$0]) } ?? "" }
    var localName: String {
        qualifiedName.firstIndex(of: ":").map { String(qualifiedName[qualifiedName.index(after: $0)...]) } ?? qualifiedName
    }
    var namespace: String? { scope[prefix] }

    func `is`(_ namespace: String, _ localName: String) -> Bool { self.namespace == namespace && self.localName == localName }

    /// The namespace and local name of an attribute of this element (unprefixed attributes
    /// have no namespace, as XML says).
    func resolve(attribute name: String) -> (namespace: String?, localName: String) {
        let parts = name.split(separator: ":", maxSplits: 1)
        guard parts.count == 2 else { return (nil, name) }
        return (scope[String(parts[0])], String(parts[1]))
    }

    var elementChildren: [XMLElementNode] {
        children.compactMap { if case .element(let element) = $0 { element } else { nil } }
    }

    /// This element and all below it, depth first.
    var descendantsAndSelf: [XMLElementNode] { [self] + elementChildren.flatMap(\.descendantsAndSelf) }

    var text: String {
        children.map { child in
            switch child {
            case .text(let text): text
            case .element(let element): element.text
            }
        }.joined()
    }

    /// A new element whose name uses `prefix`, declaring it when the scope binds it to another URI.
    func makeChild(prefix: String, namespace: String, localName: String, attributes: [(name: String, value: String)] = []) -> XMLElementNode {
        var attributes = attributes
        if scope[prefix] != namespace { attributes.insert(("xmlns:\(prefix)", namespace), at: 0) }
        return XMLElementNode(qualifiedName: "\(prefix):\(localName)", attributes: attributes, inheritedScope: scope)
    }

    func serialized() -> String {
        var out = "<\(qualifiedName)"
        for (name, value) in attributes { out += " \(name)=\"\(Self.escape(value, inAttribute: true))\"" }
        guard !children.isEmpty else { return out + "/>" }
        out += ">"
        for child in children {
            switch child {
            case .text(let text): out += Self.escape(text, inAttribute: false)
            case .element(let element): out += element.serialized()
            }
        }
        return out + "</\(qualifiedName)>"
    }

    static func escape(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            case "\n" where inAttribute: out += "&#10;"
            case "\t" where inAttribute: out += "&#9;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Parses a whole XML document; nil when it is not well-formed.
    static func parse(_ data: Data) -> XMLElementNode? {
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), builder.failed == false else { return nil }
        return builder.root
    }
}

/// Builds the element tree from XMLParser's events.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    var root: XMLElementNode?
    var stack: [XMLElementNode] = []
    var failed = false
    /// Elements nested deeper than this are refused: XMP needs a handful of levels.
    let maximumDepth = 64

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String]) {
        guard stack.count < maximumDepth else { failed = true; parser.abortParsing(); return }
        // XMLParser hands attributes over as a dictionary; sorted, so output is deterministic.
        let element = XMLElementNode(qualifiedName: elementName, attributes: attributes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
                                     inheritedScope: stack.last?.scope ?? ["xml": "http://www.w3.org/XML/1998/namespace"])
        if let parent = stack.last { parent.children.append(.element(element)) } else if root == nil { root = element }
        stack.append(element)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        _ = stack.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        stack.last?.children.append(.text(string))
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        stack.last?.children.append(.text(String(decoding: CDATABlock, as: UTF8.self)))
    }
}
