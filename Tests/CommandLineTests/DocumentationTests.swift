import Foundation
import Testing
@testable import videowm

/// README.md and docs/: every relative link (and the heading it points at) exists, the README
/// stays a short front page, and the exit codes page says what `ExitStatus` says.
@Suite("documentation: links resolve, README stays short, exit codes agree")
struct DocumentationTests {
    static let root = ManPageTests.root

    /// README.md and every Markdown file under docs/ (paths relative to the root).
    static var pages: [String] {
        let docs = root.appendingPathComponent("docs")
        let found = FileManager.default.enumerator(atPath: docs.path)?.compactMap { $0 as? String } ?? []
        return ["README.md"] + found.filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }.sorted()
    }

    @Test("every relative link in README.md and docs/ resolves, anchors included")
    func relativeLinksResolve() throws {
        var checked = 0
        for page in Self.pages {
            let text = try String(contentsOf: Self.root.appendingPathComponent(page), encoding: .utf8)
            for target in Self.links(in: text) where !Self.isExternal(target) {
                checked += 1
                let (path, anchor) = Self.split(target)
                let folder = URL(fileURLWithPath: page, relativeTo: Self.root).deletingLastPathComponent()
                let file = path.isEmpty ? Self.root.appendingPathComponent(page) : folder.appendingPathComponent(path).standardizedFileURL
                #expect(FileManager.default.fileExists(atPath: file.path), "\(page): link to \(target): no such file")
                guard let anchor, file.pathExtension == "md", let linked = try? String(contentsOf: file, encoding: .utf8) else { continue }
                #expect(Self.anchors(in: linked).contains(anchor), "\(page): link to \(target): no heading with that anchor")
            }
        }
        #expect(checked > 50)
    }

    @Test("README is at most 12,000 bytes and starts with scripts/demo and scripts/test")
    func readmeIsAFrontPage() throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("README.md"))
        #expect(data.count <= 12_000, "README.md is \(data.count) bytes")
        let top = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).prefix(15).joined(separator: "\n")
        #expect(top.contains("scripts/demo") && top.contains("scripts/test"))
    }

    @Test("the exit codes page has a row for every status, with its meaning")
    func exitCodesPageAgrees() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/reference/exit-codes.md"), encoding: .utf8)
        for status in ExitStatus.documented {
            #expect(text.contains("\n| \(status.rawValue) | \(status.meaning) |"), "docs/reference/exit-codes.md: \(status.rawValue)")
        }
    }

    // MARK: - Markdown

    /// The targets of `[text](target)` links outside fenced code blocks.
    static func links(in text: String) -> [String] {
        var targets: [String] = []
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingPrefix(while: { $0 == " " }).hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced else { continue }
            var rest = Substring(line)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                targets.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return targets
    }

    static func isExternal(_ target: String) -> Bool {
        target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:")
    }

    static func split(_ target: String) -> (path: String, anchor: String?) {
        guard let hash = target.firstIndex(of: "#") else { return (target, nil) }
        return (String(target[..<hash]), String(target[target.index(after: hash)...]))
    }

    /// The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as
    /// hyphens, a repeated heading numbered (`-1`, `-2`).
    static func anchors(in text: String) -> Set<String> {
        var anchors = Set<String>()
        var fenced = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("```") { fenced.toggle(); continue }
            guard !fenced, line.hasPrefix("#") else { continue }
            let heading = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            var slug = ""
            for character in heading.lowercased() {
                if character.isLetter || character.isNumber || character == "-" || character == "_" {
                    slug.append(character)
                } else if character == " " {
                    slug.append("-")
                }
            }
            var unique = slug
            var n = 1
            while anchors.contains(unique) {
                unique = "\(slug)-\(n)"
                n += 1
            }
            anchors.insert(unique)
        }
        return anchors
    }
}
