import Foundation
import Testing

/// The architecture's rules, checked on the sources themselves so they stay true (see
/// docs/architecture.md): FFmpeg only in Media, exit codes only in the command line, folders
/// that depend on each other one way, files of a readable size, no ICU-backed dates.
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

    /// `text` without its comments (`//…` to the end of a line; doc comments included).
    static func code(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            var inString = false
            var previous: Character = " "
            for (offset, character) in line.enumerated() {
                if character == "\"" { inString.toggle() }
                if !inString && character == "/" && previous == "/" { return String(line.prefix(offset - 1)) }
                previous = character
            }
            return String(line)
        }.joined(separator: "\n")
    }

    /// Lines of `text` that contain `pattern`, outside comments.
    static func codeLines(_ text: String, containing pattern: String) -> [String] {
        code(text).split(separator: "\n").map(String.init).filter { $0.contains(pattern) }
    }

    /// The folder of VideoWM a file is in ("Media" for Sources/VideoWM/Media/Frame.swift).
    static func folder(of path: String) -> String {
        path.split(separator: "/").dropFirst(2).first.map(String.init) ?? ""
    }

    // MARK: FFmpeg stays in Media

    @Test func onlyMediaTouchesFFmpegStructs() throws {
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWM") where Self.folder(of: path) != "Media" {
            #expect(Self.codeLines(text, containing: ".pointee").isEmpty, "\(path) reaches into a C struct")
            #expect(Self.codeLines(text, containing: "import CFFmpeg").isEmpty, "\(path) imports FFmpeg")
        }
    }

    /// libcrypto has its owning wrappers in Keys, and nothing else calls it.
    @Test func onlyKeysTouchesLibcrypto() throws {
        for folder in ["Sources/VideoWM", "Sources/videowm", "Sources/LeakTrace", "Sources/Overlay", "Sources/Animation"] {
            for (path, text) in try Self.swiftFiles(under: folder) where Self.folder(of: path) != "Keys" || !path.hasPrefix("Sources/VideoWM/") {
                #expect(Self.codeLines(text, containing: "import CCrypto").isEmpty, "\(path) imports libcrypto")
            }
        }
    }

    // MARK: Errors

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

    // MARK: Memory

    /// Foundation's calendars, date formatters and locales load ICU's data into the process:
    /// `Calendar.current` for `{date}` alone cost every transcode about 5 MB of peak RSS, more
    /// than the benchmark's margin against ffmpeg. Dates go through the C library (`TextTokens`).
    @Test func noICUBackedDatesOrLocales() throws {
        for folder in ["Sources/VideoWM", "Sources/Overlay", "Sources/Animation", "Sources/videowm"] {
            for (path, text) in try Self.swiftFiles(under: folder) {
                for pattern in ["Calendar.current", "Calendar(identifier", "DateFormatter", "Date.FormatStyle", ".formatted(",
                                "Locale.current", "TimeZone.current", "NumberFormatter"] {
                    #expect(Self.codeLines(text, containing: pattern).isEmpty, "\(path) uses \(pattern)")
                }
            }
        }
    }

    // MARK: Folders

    /// The folders of VideoWM and those each may use (besides itself). Errors and Support
    /// are the ground floor; Config stands beside Media and uses neither; Stills and
    /// SmartRendering and HLS use Media; Pipeline uses Media and SmartRendering; the jobs that need
    /// more (Marks binds a config to its images, Previews turns video frames into stills,
    /// Presentations makes HLS segments from Pipeline's stages, Transcode picks a file or a
    /// presentation, Batch runs many transcodes, Tracing names the row behind a leak) sit above.
    static let allowedDependencies: [String: Set<String>] = [
        "Errors": [],
        "Support": ["Errors"],
        "Media": ["Errors", "Support"],
        // A config bound to a key derives its random paths' seeds through Keys.
        "Config": ["Errors", "Support", "Keys"],
        // HMAC, HKDF, random bytes and key files over libcrypto: used by whatever marks or traces with a key.
        "Keys": ["Errors", "Support"],
        "Stills": ["Errors", "Support", "Media"],
        "SmartRendering": ["Errors", "Support", "Media"],
        "HLS": ["Errors", "Support", "Media"],
        // The ladder, multivariant playlists, CODECS strings and WebVTT captions, and the ladder's
        // lecture and students over Presentations' rows (docs/hls.md §14–15).
        "Renditions": ["Errors", "Support", "Media", "HLS", "SmartRendering", "Pipeline", "Marks", "Config", "Presentations"],
        "Pipeline": ["Errors", "Support", "Media", "SmartRendering"],
        "Marks": ["Errors", "Support", "Config", "Stills"],
        "Previews": ["Errors", "Support", "Media", "Stills", "Pipeline"],
        // An input indexed for HLS, each row's segments made alone or in order; binds a config for a server.
        "Presentations": ["Errors", "Support", "Media", "SmartRendering", "HLS", "Pipeline", "Marks", "Config"],
        // A variant layer's copy made alone takes its student's codeword from the config (VariantCopy).
        "Transcode": ["Errors", "Support", "Media", "SmartRendering", "HLS", "Pipeline", "Presentations", "Renditions", "Config", "Variants"],
        "Batch": ["Errors", "Support", "Media", "Config", "Pipeline", "SmartRendering", "Marks", "HLS", "Presentations", "Renditions", "Keys", "Variants"],
        // Variant layers' code (docs/variant-marks.md): biases and codewords from the key, the lecture and student names.
        "Variants": ["Errors", "Support", "Config", "Keys"],
        // Reads the batch's CSV and binds its rows as batch does, then decodes leak and original as grey frames;
        // a still leak is read upright (Stills) and its marks' text by Tesseract (TextRecognition).
        "Tracing": ["Errors", "Support", "Media", "Config", "Marks", "Batch", "Keys", "Presentations", "Variants", "Stills", "TextRecognition"],
        // Tesseract's C API, the only code that calls it (CTesseract).
        "TextRecognition": ["Errors", "Support"],
    ]

    /// Which folder declares each top-level type name (classes, structs, enums, protocols, type aliases).
    static func declarations(in files: [(path: String, text: String)]) -> [String: String] {
        let pattern = try! NSRegularExpression(pattern: #"^(?:public |private |fileprivate |internal |final |indirect )*(?:class|struct|enum|protocol|typealias) ([A-Za-z_][A-Za-z0-9_]*)"#,
                                               options: .anchorsMatchLines)
        var owner: [String: String] = [:]
        for (path, text) in files {
            let source = code(text)
            for match in pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                let name = String(source[Range(match.range(at: 1), in: source)!])
                owner[name] = folder(of: path)
            }
        }
        return owner
    }

    /// Folder → the other folders whose types its code names (a name after a `.` is a member,
    /// not a type of ours; string literals are left out).
    static func folderDependencies(under module: String = "Sources/VideoWM") throws -> [String: Set<String>] {
        let files = try swiftFiles(under: module)
        let owner = declarations(in: files)
        let word = try! NSRegularExpression(pattern: #"(?<![.A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*"#)
        let strings = try! NSRegularExpression(pattern: #""(?:[^"\\]|\\.)*""#)
        var edges: [String: Set<String>] = [:]
        for (path, text) in files {
            let from = folder(of: path)
            let withStrings = code(text)
            let source = strings.stringByReplacingMatches(in: withStrings, range: NSRange(withStrings.startIndex..., in: withStrings), withTemplate: "\"\"")
            for match in word.matches(in: source, range: NSRange(source.startIndex..., in: source)) {
                let name = String(source[Range(match.range, in: source)!])
                if let to = owner[name], to != from { edges[from, default: []].insert(to) }
            }
        }
        return edges
    }

    @Test func foldersDependOnlyDownwards() throws {
        let edges = try Self.folderDependencies()
        for (from, targets) in edges.sorted(by: { $0.key < $1.key }) {
            let allowed = try #require(Self.allowedDependencies[from], "\(from) is a folder the architecture does not list")
            #expect(targets.subtracting(allowed).isEmpty, "\(from) uses \(targets.subtracting(allowed).sorted())")
        }
        // With the allowed table acyclic, so are the folders; check the table too.
        func reaches(_ start: String, _ target: String, seen: Set<String> = []) -> Bool {
            for next in Self.allowedDependencies[start] ?? [] where !seen.contains(next) {
                if next == target || reaches(next, target, seen: seen.union([next])) { return true }
            }
            return false
        }
        for folder in Self.allowedDependencies.keys { #expect(!reaches(folder, folder), "\(folder) depends on itself") }
    }

    /// docs/architecture.md's folder table, the one a contributor reads: folder → what it may use
    /// (Errors and Support left out: every folder may use them).
    static func documentedFolders() throws -> [String: Set<String>] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let section = try #require(doc.components(separatedBy: "## Folders of VideoWM").dropFirst().first, "architecture.md has no folder table")
        var table: [String: Set<String>] = [:]
        for line in section.split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // | `Folder` | holds | may use |
            guard cells.count == 5, cells[1].hasPrefix("`"), cells[1].hasSuffix("`") else { continue }
            let folder = String(cells[1].dropFirst().dropLast())
            let uses = cells[3] == "—" ? [] : cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            table[folder] = Set(uses).subtracting(["Errors", "Support"])
        }
        return table
    }

    /// The table in the document is the table checked here, and it lists every folder that exists:
    /// a folder added, or a use allowed, only in one of them fails.
    @Test func theDocumentedFolderTableIsTheCheckedOne() throws {
        let documented = try Self.documentedFolders()
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources/VideoWM").path)
            .filter { name in
                var isFolder: ObjCBool = false
                return FileManager.default.fileExists(atPath: Self.root.appendingPathComponent("Sources/VideoWM/\(name)").path, isDirectory: &isFolder) && isFolder.boolValue
            }
        #expect(Set(documented.keys) == Set(onDisk), "architecture.md lists \(documented.keys.sorted()); Sources/VideoWM has \(onDisk.sorted())")
        #expect(Set(documented.keys) == Set(Self.allowedDependencies.keys))
        for (folder, allowed) in Self.allowedDependencies.sorted(by: { $0.key < $1.key }) {
            #expect(documented[folder] == allowed.subtracting(["Errors", "Support"]),
                    "\(folder): architecture.md says it may use \(documented[folder]?.sorted() ?? []), the test allows \(allowed.sorted())")
        }
    }

    /// Every type the job-flow section of docs/architecture.md names exists in Sources: the
    /// diagrams are the real code's, not a removed design's (HLSSegmenter, SegmentwiseVideo).
    @Test func theJobFlowNamesOnlyRealTypes() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let flow = try #require(doc.components(separatedBy: "## How a job flows").dropFirst().first?.components(separatedBy: "\n## ").first)
        var declared: Set<String> = []
        let declaration = try NSRegularExpression(pattern: #"(?:class|struct|enum|protocol|typealias|actor) ([A-Z][A-Za-z0-9_]*)"#)
        for module in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent("Sources").path) {
            declared.insert(module)
            for (_, text) in try Self.swiftFiles(under: "Sources/\(module)") {
                for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    declared.insert(String(text[Range(match.range(at: 1), in: text)!]))
                }
            }
        }
        // Names with two capitals or more and a lower-case letter (a one-word name may be English,
        // HLS or PQ are abbreviations, GOPs a plural of one), not after a dot (a member).
        let word = try NSRegularExpression(pattern: #"(?<![A-Za-z0-9_.])[A-Z][A-Za-z0-9]*(?![A-Za-z0-9_])"#)
        let notTypes: Set<String> = ["FFmpeg"]
        var named: Set<String> = []
        for match in word.matches(in: flow, range: NSRange(flow.startIndex..., in: flow)) {
            let name = String(flow[Range(match.range, in: flow)!])
            let capitals = name.filter(\.isUppercase).count, lower = name.filter(\.isLowercase)
            guard capitals >= 2, !lower.isEmpty, !(lower == "s" && name.hasSuffix("s")), !notTypes.contains(name) else { continue }
            named.insert(name)
        }
        #expect(named.count > 40, "the job flow names \(named.count) types; the section was not found whole")
        #expect(named.subtracting(declared).isEmpty, "architecture.md's job flow names types that do not exist: \(named.subtracting(declared).sorted())")
    }

    // MARK: Data flows one way

    /// HLS segments are written by our own fMP4 writer from the packets a segment holds: no code
    /// that cuts or writes segments reaches the muxer (only the initialization segment is
    /// FFmpeg's), and the muxer hands packets to nobody (no router calling back into it).
    @Test func theSegmenterNeverCallsIntoTheMuxer() throws {
        let segmenting = try Self.swiftFiles(under: "Sources/VideoWM/HLS") + Self.swiftFiles(under: "Sources/VideoWM/Presentations")
        for (path, text) in segmenting where !path.hasSuffix("/InitializationSegment.swift") {
            for pattern in ["Muxer", "muxer", "MuxedStream", "cutFragment", "writeIntoFragment"] {
                #expect(Self.codeLines(text, containing: pattern).isEmpty, "\(path) reaches the muxer (\(pattern))")
            }
        }
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWM/Media") {
            for pattern in ["Router", "route(", "weak var"] {
                #expect(Self.codeLines(text, containing: pattern).isEmpty, "\(path) hands packets back up (\(pattern))")
            }
        }
    }

    /// Force unwraps stay a handful, each on a value the code itself just made (a constant, a
    /// C callback's own context, a scratch buffer it allocated): a table look-up that can only
    /// miss by a bug says so with an error (`Dictionary.entry`), not a crash. Branches written in
    /// parallel brought 21 back in one merge; this counts them in every module, and no `fatalError`.
    @Test func forceUnwrapsStayAHandful() throws {
        let unwrap = /[A-Za-z0-9_)\]}]!(?!=)/
        var found: [String] = []
        for (path, text) in try Self.swiftFiles(under: "Sources") {
            for (n, line) in Self.code(text).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.contains(unwrap) { found.append("\(path):\(n + 1): \(line.trimmingCharacters(in: .whitespaces))") }
                #expect(!line.contains("fatalError("), "\(path):\(n + 1) stops the process")
            }
        }
        #expect(found.count <= 5, "\(found.count) force unwraps:\n\(found.joined(separator: "\n"))")
    }

    /// A file over 300 lines says why in its header comment.
    @Test func longFilesSayWhy() throws {
        for folder in ["Sources/VideoWM", "Sources/videowm"] {
            for (path, text) in try Self.swiftFiles(under: folder) {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
                guard lines > 300 else { continue }
                let header = text.split(separator: "\n").prefix { $0.hasPrefix("//") || $0.hasPrefix("import") || $0.isEmpty }
                #expect(header.contains { $0.contains("lines") }, "\(path) has \(lines) lines and no reason in its header")
            }
        }
    }

    // MARK: The server

    /// The folders of VideoWMServe (`videowm serve`, a thin layer over VideoWM) and those each
    /// may use. HTTP is the only one that touches libmicrohttpd; Access (tokens) stands alone;
    /// Rendering is the protocol to VideoWM's segment API and the lecture definition it takes;
    /// Library (lectures by name), Cache and Operations (metrics, log) sit above those; Server
    /// (routes, the handler, the origin) puts them together.
    static let serverDependencies: [String: Set<String>] = [
        "HTTP": [],
        "Access": [],
        "Rendering": ["Access"],
        "Library": ["HTTP", "Access", "Operations", "Rendering"],
        "Cache": ["HTTP", "Access"],
        "Operations": ["HTTP"],
        "Server": ["HTTP", "Access", "Library", "Rendering", "Cache", "Operations"],
    ]

    @Test func theServerIsAThinLayerAboveTheLibrary() throws {
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWMServe") {
            #expect(Self.codeLines(text, containing: "import CFFmpeg").isEmpty, "\(path) imports FFmpeg")
            if Self.folder(of: path) != "HTTP" {
                #expect(Self.codeLines(text, containing: "import CMicroHTTPD").isEmpty, "\(path) imports libmicrohttpd outside HTTP")
                #expect(Self.codeLines(text, containing: ".pointee").isEmpty, "\(path) reaches into a C struct")
            }
        }
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWM") {
            #expect(Self.codeLines(text, containing: "import VideoWMServe").isEmpty, "\(path): the library depends on its server")
        }
        let edges = try Self.folderDependencies(under: "Sources/VideoWMServe")
        for (from, targets) in edges.sorted(by: { $0.key < $1.key }) {
            let allowed = try #require(Self.serverDependencies[from], "\(from) is a folder of VideoWMServe the architecture does not list")
            #expect(targets.subtracting(allowed).isEmpty, "\(from) uses \(targets.subtracting(allowed).sorted())")
        }
        func reaches(_ start: String, _ target: String, seen: Set<String> = []) -> Bool {
            for next in Self.serverDependencies[start] ?? [] where !seen.contains(next) {
                if next == target || reaches(next, target, seen: seen.union([next])) { return true }
            }
            return false
        }
        for folder in Self.serverDependencies.keys { #expect(!reaches(folder, folder), "\(folder) depends on itself") }
    }
}
