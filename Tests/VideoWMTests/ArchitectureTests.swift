import Foundation
import Testing

/// The architecture's rules, checked on the sources themselves so they stay true: see
/// docs/architecture.md.
@Suite("architecture")
struct ArchitectureTests {
    /// The package's root, found from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every Swift file under `folder` (relative to the root), with its path relative to the root and its text.
    static func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            files.append((relative, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// Lines of `text` that contain `pattern`, outside comments.
    static func codeLines(_ text: String, containing pattern: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return code.contains(pattern)
        }
    }

    /// Exit codes are the command line's business: the library reports what went wrong.
    @Test func theLibraryChoosesNoExitCodes() throws {
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWM") {
            #expect(Self.codeLines(text, containing: "ExitStatus").isEmpty, "\(path)")
            #expect(Self.codeLines(text, containing: "exitStatus").isEmpty, "\(path)")
        }
    }

    /// Control flow never branches on a status or on an error's text.
    @Test func noBranchingOnStatusOrMessageText() throws {
        for folder in ["Sources/VideoWM", "Sources/Overlay", "Sources/videowm"] {
            for (path, text) in try Self.swiftFiles(under: folder) {
                for pattern in ["error.status", "error?.status", "message ==", "message.contains", "message.hasPrefix", "description.contains",
                                "replacingOccurrences(of: temporary", "reason ==", "== \"no such file\""] {
                    #expect(Self.codeLines(text, containing: pattern).isEmpty, "\(path) contains \(pattern)")
                }
            }
        }
    }
}
