import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of an XML document read with namespaces resolved: enough to walk CPIX documents and MPDs by
/// namespace and local name, whatever prefixes their writers chose. External entities are never resolved.
final class XMLNode {
    let namespace: String?
    let name: String
    /// Attributes by qualified name as written (`kid`, `cenc:default_KID`); `attribute(_:namespace:)` resolves prefixes.
    let attributes: [String: String]
    private(set) var children: [XMLNode] = []
    private(set) var text = ""
    /// Prefix → namespace URI in scope at this element.
    let scope: [String: String]
    /// 1-based, for messages.
    let line: Int

    init(namespace: String?, name: String, attributes: [String: String], scope: [String: String], line: Int) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.scope = scope
        self.line = line
    }

    func elements(_ name: String, in namespace: String? = nil) -> [XMLNode] {
        children.filter { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    func element(_ name: String, in namespace: String? = nil) -> XMLNode? { elements(name, in: namespace).first }

    /// An attribute by local name; with `namespace`, one whose prefix is bound to it (`cenc:default_KID`).
    func attribute(_ name: String, namespace: String? = nil) -> String? {
        guard let namespace else { return attributes[name] }
        for (qualified, value) in attributes {
            let parts = qualified.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[1] == name, scope[String(parts[0])] == namespace { return value }
        }
        return nil
    }

    var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    fileprivate func add(_ child: XMLNode) { children.append(child) }
    fileprivate func addText(_ more: String) { text += more }

    /// The document's root element, or a one-line reason it is not well-formed XML.
    static func parse(_ data: [UInt8]) -> Result<XMLNode, XMLReadError> {
        let parser = XMLParser(data: Data(data))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        let builder = TreeBuilder(parser: parser)
        parser.delegate = builder
        let parsed = parser.parse()
        guard parsed, builder.failure == nil, parser.parserError == nil, builder.isBalanced, let root = builder.root else {
            let reason = (builder.failure ?? parser.parserError).map(Self.reason)
                ?? (builder.isBalanced ? "no root element" : "an element is not closed")
            return .failure(XMLReadError(line: max(1, parser.lineNumber), reason: reason))
        }
        return .success(root)
    }
}

extension XMLNode {
    /// The reason in words where Foundation gives only "error 73". On Linux the error's code is libxml2's own
    /// (`xmlParserErrors`, not `XMLParser.ErrorCode`'s numbering): its common ones are named here.
    private static func reason(_ error: Error) -> String {
        let error = error as NSError
        guard error.domain == XMLParser.errorDomain else { return error.localizedDescription }
        switch error.code {
        case 3, 4: return "no XML document (empty, or not starting with '<')"
        case 5: return "content after the root element"
        case 9: return "an invalid character"
        case 23, 24, 26, 27: return "an undeclared or malformed entity"
        case 38...42: return "a malformed attribute"
        case 73, 74, 77: return "the document ends or breaks off inside a tag"
        case 76: return "a closing tag does not match the element it closes"
        case 200...299: return "an undeclared or malformed namespace"
        default: return "XML parser error \(error.code)"
        }
    }
}

struct XMLReadError: Error {
    var line: Int
    var reason: String
    var description: String { "not well-formed XML (line \(line)): \(reason)" }
}

/// Builds the element tree from XMLParser's events (namespace processing on: names arrive as local names with their
/// namespace URI, attributes with the prefixes the document wrote).
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private weak var parser: XMLParser?
    private(set) var root: XMLNode?
    private var stack: [XMLNode] = []
    private var pendingPrefixes: [String: String] = [:]
    private(set) var failure: Error?
    /// Every element opened was closed, in order.
    private(set) var isBalanced = true

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { failure = failure ?? parseError }

    init(parser: XMLParser) { self.parser = parser }

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        pendingPrefixes[prefix] = namespaceURI
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes: [String: String] = [:]) {
        var scope = stack.last?.scope ?? [:]
        scope.merge(pendingPrefixes) { $1 }
        pendingPrefixes = [:]
        let node = XMLNode(namespace: namespaceURI.flatMap { $0.isEmpty ? nil : $0 }, name: elementName,
                           attributes: attributes, scope: scope, line: parser.lineNumber)
        stack.last?.add(node)
        if root == nil { root = node }
        stack.append(node)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        if stack.last?.name != elementName { isBalanced = false }
        _ = stack.popLast()
    }

    func parserDidEndDocument(_ parser: XMLParser) {
        if !stack.isEmpty { isBalanced = false }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { stack.last?.addText(string) }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        stack.last?.addText(String(decoding: CDATABlock, as: UTF8.self))
    }
}

/// Text escaped for XML attribute values and character data.
enum XMLText {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }
}
