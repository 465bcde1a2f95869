import Foundation
import TestSupport
import Testing

/// The architecture's rules, checked on the sources themselves so they stay true (see
/// docs/design/architecture.md): FFmpeg only in the Media target, exit codes only in the command line,
/// no folder cycles in any module, files of a readable size, no ICU-backed dates.
///
/// How folders sort (issue 38): by stage, in every module. A folder may use the folders of the stages
/// before it, never a later one's; the files directly in a module's folder (its entry types:
/// `Compositor`, `LeakAnalyzer`, `CommandLineTool`) are its last stage. A type's extensions live beside
/// it, since an extension names the type it extends.
/// - Overlay: Pixels → Text → Layout → Compositing → the root (`Compositor`, `LayerSpec`).
/// - LeakTrace: Imaging → Alignment → Detection → Scoring → Paths, and Scoring → Fingerprinting →
///   Variants; the root (`LeakAnalyzer`) last.
/// - Media: Errors → Support → the root (the FFmpeg wrappers).
/// - VideoWM and VideoWMServe: what each folder may use is the tables below (`allowedDependencies`,
///   `serverDependencies`), which issue 38 re-sorts; until then their folder cycles known today are
///   listed in `knownCycles`, and every other module has none.
/// A folder uses another when its code names a type the other declares at its top level; comments and
/// string literals name nothing (`SwiftSource`), and `FolderGraph` finds the cycles.
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

    /// `text` with its comments (line, block, doc) blanked out, line breaks kept; string literals stay.
    /// Lexed once per text: the checks below look at every file for many patterns.
    static func code(_ text: String) -> String {
        if let known = codeOfText.withLock({ $0[text] }) { return known }
        let code = SwiftSource(text).codeText
        codeOfText.withLock { $0[text] = code }
        return code
    }

    private static let codeOfText = Locked<[String: String]>([:])

    /// Lines of `text` that contain `pattern`, outside comments.
    static func codeLines(_ text: String, containing pattern: String) -> [String] {
        code(text).split(separator: "\n").map(String.init).filter { $0.contains(pattern) }
    }

    /// The folder of its module a file is in: "Pipeline" for Sources/VideoWM/Pipeline/MarkedOutput.swift,
    /// `FolderGraph.root` for a file directly in the module's folder.
    static func folder(of path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.count > 3 ? String(parts[2]) : FolderGraph.root
    }

    /// A module's files (`module` as "Sources/Overlay"), read, with their folders.
    static func sources(of module: String) throws -> [FolderGraph.File] {
        try swiftFiles(under: module).map { ($0.path, folder(of: $0.path), SwiftSource($0.text)) }
    }

    // MARK: FFmpeg stays in Media

    /// The C modules only the Media target may depend on, and the targets besides it that may: FFmpeg and
    /// libwebp are Media's alone; libheif also makes the tests' iPhone-style HEIC files (TestSupport).
    static let mediaOnlyModules: [String: Set<String>] = ["CFFmpeg": [], "CWebP": [], "CHeif": ["TestSupport"]]

    /// FFmpeg (and libheif, libwebp) belong to the Media target: no other target depends on their C
    /// modules, no file outside Sources/Media imports them, and Media imports every C module `internal`,
    /// so neither VideoWM nor a client of it ever sees a C type. What VideoWM takes from Media is its
    /// `package` API, which the compiler checks.
    @Test func onlyMediaDependsOnFFmpeg() throws {
        let targets = try Self.manifestTargets()
        #expect(targets["Media"]?.isSuperset(of: ["CFFmpeg", "CHeif", "CWebP"]) == true, "Package.swift was not read whole: \(targets)")
        #expect(targets["VideoWM"]?.contains("Media") == true)
        for (name, dependencies) in targets.sorted(by: { $0.key < $1.key }) where name != "Media" {
            for (module, alsoAllowed) in Self.mediaOnlyModules where !alsoAllowed.contains(name) {
                #expect(!dependencies.contains(module), "target \(name) depends on \(module), which only Media may")
            }
        }
        let cModules = Set(targets.keys.filter { $0.hasPrefix("C") })
        for (path, text) in try Self.swiftFiles(under: "Sources") {
            let isMedia = path.hasPrefix("Sources/Media/")
            for (access, module) in SwiftSource(text).imports {
                if !isMedia { #expect(Self.mediaOnlyModules[module] == nil, "\(path) imports \(module)") }
                if isMedia && cModules.contains(module) {
                    #expect(["internal", "fileprivate", "private"].contains(access), "\(path): \(module) must be imported internal")
                }
            }
        }
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWM") {
            #expect(Self.codeLines(text, containing: ".pointee").isEmpty, "\(path) reaches into a C struct")
        }
    }

    /// The targets Package.swift declares and the targets and products each depends on (by name), read
    /// from its source: `.target(name: "X", dependencies: ["Y", .product(name: "Z", …)])`.
    static func manifestTargets() throws -> [String: Set<String>] {
        let tokens = SwiftSource(try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)).tokens
        let kinds: Set<String> = ["target", "executableTarget", "testTarget", "systemLibrary", "binaryTarget", "plugin", "macro"]
        func isPunctuation(_ i: Int, _ text: String) -> Bool { i < tokens.count && tokens[i].kind == .punctuation && tokens[i].text == text }
        func isLabel(_ i: Int, _ label: String) -> Bool {
            tokens[i].kind == .identifier && tokens[i].text == label && isPunctuation(i + 1, ":") && i + 2 < tokens.count && tokens[i + 2].kind == .string
        }
        var targets: [String: Set<String>] = [:]
        var i = 0
        while i + 2 < tokens.count {
            defer { i += 1 }
            guard isPunctuation(i, "."), tokens[i + 1].kind == .identifier, kinds.contains(tokens[i + 1].text), isPunctuation(i + 2, "(") else { continue }
            // The call's arguments: its name, and the strings of its dependencies' list (names, or `name:` of a .product/.target).
            var depth = 0, j = i + 2, name: String?, dependencies: Set<String> = [], inDependencies = false, listDepth = 0
            repeat {
                let token = tokens[j]
                if token.kind == .punctuation && ["(", "["].contains(token.text) { depth += 1 }
                if token.kind == .punctuation && [")", "]"].contains(token.text) {
                    depth -= 1
                    if inDependencies && depth < listDepth { inDependencies = false }
                }
                if depth == 1 && isLabel(j, "name") { name = tokens[j + 2].text }
                if depth == 1 && token.kind == .identifier && token.text == "dependencies" && isPunctuation(j + 1, ":") && isPunctuation(j + 2, "[") {
                    inDependencies = true
                    listDepth = 2
                }
                if inDependencies && token.kind == .string && (depth == 2 || (j >= 2 && isLabel(j - 2, "name"))) { dependencies.insert(token.text) }
                j += 1
            } while depth > 0 && j < tokens.count
            if let name { targets[name] = dependencies }
            i = j - 1
        }
        return targets
    }

    /// libcrypto has its owning wrappers in Keys, and nothing else calls it.
    @Test func onlyKeysTouchesLibcrypto() throws {
        for folder in ["Sources/VideoWM", "Sources/Media", "Sources/videowm", "Sources/LeakTrace", "Sources/Overlay", "Sources/Animation"] {
            for (path, text) in try Self.swiftFiles(under: folder) where Self.folder(of: path) != "Keys" || !path.hasPrefix("Sources/VideoWM/") {
                #expect(Self.codeLines(text, containing: "import CCrypto").isEmpty, "\(path) imports libcrypto")
            }
        }
    }

    // MARK: Errors

    /// Exit codes are the command line's business: the library reports what went wrong.
    @Test func theLibraryChoosesNoExitCodes() throws {
        for (path, text) in try Self.swiftFiles(under: "Sources/VideoWM") + Self.swiftFiles(under: "Sources/Media") {
            #expect(Self.codeLines(text, containing: "ExitStatus").isEmpty, "\(path)")
            #expect(Self.codeLines(text, containing: "exitStatus").isEmpty, "\(path)")
        }
    }

    /// Control flow never branches on a status or on an error's text.
    @Test func noBranchingOnStatusOrMessageText() throws {
        for folder in ["Sources/VideoWM", "Sources/Media", "Sources/Overlay", "Sources/videowm"] {
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
        for folder in ["Sources/VideoWM", "Sources/Media", "Sources/Overlay", "Sources/Animation", "Sources/videowm"] {
            for (path, text) in try Self.swiftFiles(under: folder) {
                for pattern in ["Calendar.current", "Calendar(identifier", "DateFormatter", "Date.FormatStyle", ".formatted(",
                                "Locale.current", "TimeZone.current", "NumberFormatter"] {
                    #expect(Self.codeLines(text, containing: pattern).isEmpty, "\(path) uses \(pattern)")
                }
            }
        }
    }

    // MARK: Folders

    /// The folders of VideoWM and those each may use (besides itself). "Media" is the Media module below
    /// VideoWM (its wrappers; its Errors and Support count as VideoWM's, the ground floor every folder
    /// may use). Config stands beside Media and uses neither; Stills and
    /// SmartRendering and HLS use Media; Pipeline uses Media and SmartRendering; the jobs that need
    /// more (Marks binds a config to its images, Previews turns video frames into stills,
    /// Presentations makes HLS segments from Pipeline's stages, Transcode picks a file or a
    /// presentation, Batch runs many transcodes, Tracing names the row behind a leak) sit above.
    static let allowedDependencies: [String: Set<String>] = [
        "Errors": [],
        "Support": ["Errors"],
        // A config bound to a key derives its random paths' seeds through Keys.
        "Config": ["Errors", "Support", "Keys"],
        // HMAC, HKDF, random bytes and key files over libcrypto: used by whatever marks or traces with a key.
        "Keys": ["Errors", "Support"],
        "Stills": ["Errors", "Support", "Media"],
        "SmartRendering": ["Errors", "Support", "Media"],
        "HLS": ["Errors", "Support", "Media"],
        // The ladder, multivariant playlists, CODECS strings and WebVTT captions, and the ladder's
        // lecture and students over Presentations' rows (docs/design/hls.md §14–15).
        "Renditions": ["Errors", "Support", "Media", "HLS", "SmartRendering", "Pipeline", "Marks", "Config", "Presentations"],
        "Pipeline": ["Errors", "Support", "Media", "SmartRendering"],
        "Marks": ["Errors", "Support", "Config", "Stills"],
        "Previews": ["Errors", "Support", "Media", "Stills", "Pipeline"],
        // An input indexed for HLS, each row's segments made alone or in order; binds a config for a server.
        "Presentations": ["Errors", "Support", "Media", "SmartRendering", "HLS", "Pipeline", "Marks", "Config"],
        // The backbone (issue 38): a lecture prepared once, a student's copy, its typed resources, and the
        // one writer of whole copies — over every kind of lecture, for transcode, batch and serve.
        "Lectures": ["Errors", "Support", "Media", "SmartRendering", "HLS", "Pipeline", "Presentations", "Renditions", "Marks", "Config",
                     "Keys", "Variants"],
        // Drivers of the backbone: a file output's pipeline, or one student's copy of a lecture.
        // (Presentations and Renditions for the values they hand on: a write's summary, `--ladder`'s request.)
        "Transcode": ["Errors", "Support", "Media", "SmartRendering", "HLS", "Pipeline", "Presentations", "Renditions", "Lectures", "Config"],
        "Batch": ["Errors", "Support", "Media", "Config", "Pipeline", "SmartRendering", "Marks", "HLS", "Presentations", "Renditions", "Lectures",
                  "Keys", "Variants"],
        // Variant layers' code (docs/design/variant-marks.md): biases and codewords from the key, the lecture and student names.
        "Variants": ["Errors", "Support", "Config", "Keys"],
        // Reads the batch's CSV and binds its rows as batch does, then decodes leak and original as grey frames;
        // a still leak is read upright (Stills) and its marks' text by Tesseract (TextRecognition).
        "Tracing": ["Errors", "Support", "Media", "Config", "Marks", "Batch", "Keys", "Presentations", "Variants", "Stills", "TextRecognition"],
        // Tesseract's C API, the only code that calls it (CTesseract).
        "TextRecognition": ["Errors", "Support"],
    ]

    /// Folder cycles known when the check came (issue 38), per module: each a strongly connected set of
    /// folders. Temporary: the re-sorting of VideoWM, VideoWMServe and the command line empties it. A cycle
    /// not listed fails, and so does a listed one that is gone, so the list only shrinks; an edge inside a
    /// listed cycle is not reported again by `foldersDependOnlyDownwards`.
    static let knownCycles: [String: [Set<String>]] = [:]

    /// Every module whose files are in folders ("Sources/Overlay"…).
    static func modulesWithFolders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Sources").path).sorted()
            .map { "Sources/\($0)" }
            .filter { module in try swiftFiles(under: module).contains { folder(of: $0.path) != FolderGraph.root } }
    }

    /// No module's folders use each other round a cycle (but those in `knownCycles`, for now); a cycle
    /// is named with the types that make each step.
    @Test func noFolderCycles() throws {
        let modules = try Self.modulesWithFolders()
        #expect(Set(modules).isSuperset(of: ["Sources/VideoWM", "Sources/Media", "Sources/Overlay", "Sources/LeakTrace", "Sources/VideoWMServe"]),
                "the modules with folders are \(modules)")
        for module in modules {
            let graph = FolderGraph(try Self.sources(of: module))
            let known = Self.knownCycles[module] ?? []
            let cycles = graph.cycles
            for cycle in cycles {
                #expect(known.contains { cycle.isSubset(of: $0) },
                        "\(module): folders \(cycle.sorted()) use each other round a cycle, as \(graph.describe(cycle))")
            }
            for listed in known {
                #expect(cycles.contains { !$0.isDisjoint(with: listed) }, "\(module): \(listed.sorted()) is no longer a cycle: take it out of knownCycles")
            }
        }
    }

    /// The folder a type of VideoWM or of the Media module below it is declared in, as the table sees it:
    /// VideoWM's own folders, and Media's wrappers as "Media" (its Errors and Support as VideoWM's Errors and
    /// Support, which every folder may use).
    static func libraryOwners() throws -> [String: String] {
        var owners = FolderGraph.owners(of: try sources(of: "Sources/Media").map { file in
            (file.path, file.folder == FolderGraph.root ? "Media" : file.folder, file.source)
        })
        owners.merge(FolderGraph.owners(of: try sources(of: "Sources/VideoWM"))) { _, videoWM in videoWM }
        return owners
    }

    @Test func foldersDependOnlyDownwards() throws {
        let graph = FolderGraph(try Self.sources(of: "Sources/VideoWM"), owners: try Self.libraryOwners())
        let known = Self.knownCycles["Sources/VideoWM"] ?? []
        for (from, uses) in graph.uses.sorted(by: { $0.key < $1.key }) {
            let allowed = try #require(Self.allowedDependencies[from], "\(from) is a folder the architecture does not list")
            for (to, evidence) in uses.sorted(by: { $0.key < $1.key }) where !allowed.contains(to) && !known.contains(where: { $0.isSuperset(of: [from, to]) }) {
                Issue.record("\(from) uses \(to): \(evidence.joined(separator: ", "))")
            }
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

    /// docs/design/architecture.md's folder table, the one a contributor reads: folder → what it may use
    /// (Errors and Support left out: every folder may use them).
    static func documentedFolders() throws -> [String: Set<String>] {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/design/architecture.md"), encoding: .utf8)
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
                // The DocC catalogue (VideoWM.docc) is documentation, not a folder of code.
                guard !name.hasSuffix(".docc") else { return false }
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

    /// Every type the job-flow section of docs/design/architecture.md names exists in Sources: the
    /// diagrams are the real code's, not a removed design's (HLSSegmenter, SegmentwiseVideo).
    @Test func theJobFlowNamesOnlyRealTypes() throws {
        let doc = try String(contentsOf: Self.root.appendingPathComponent("docs/design/architecture.md"), encoding: .utf8)
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
        let notTypes: Set<String> = ["FFmpeg", "WebP"]
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
        for (path, text) in try Self.swiftFiles(under: "Sources/Media") {
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
        for folder in ["Sources/VideoWM", "Sources/Media", "Sources/videowm"] {
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
        let graph = FolderGraph(try Self.sources(of: "Sources/VideoWMServe"))
        for (from, uses) in graph.uses.sorted(by: { $0.key < $1.key }) {
            let allowed = try #require(Self.serverDependencies[from], "\(from) is a folder of VideoWMServe the architecture does not list")
            for (to, evidence) in uses.sorted(by: { $0.key < $1.key }) where !allowed.contains(to) {
                Issue.record("\(from) uses \(to): \(evidence.joined(separator: ", "))")
            }
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
