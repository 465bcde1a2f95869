/// Which folders of a module use which: a folder uses another when its code names a type declared at the
/// other's top level (comments and string literals left out, see `SwiftSource`; an extension names the type it
/// extends). Files directly in a module's folder form the folder `FolderGraph.root`.
struct FolderGraph {
    /// The folder of the files directly in a module's folder (`Compositor.swift` in Sources/Overlay).
    static let root = "(root)"

    /// A file of the module: its path (for messages), its folder and its source.
    typealias File = (path: String, folder: String, source: SwiftSource)

    /// Folder → a folder it uses → how, one line per file and name ("Sources/Overlay/Layout/Placement.swift
    /// names PixelRect").
    let uses: [String: [String: [String]]]

    /// The graph of `files`; `owners` says which folder declares each type when it is not these files' own
    /// declarations (VideoWM's table check counts the Media module's types as folders of its own).
    init(_ files: [File], owners: [String: String]? = nil) {
        let owners = owners ?? Self.owners(of: files)
        var uses: [String: [String: [String]]] = [:]
        for file in files {
            for name in Set(file.source.typeNames).sorted() {
                guard let owner = owners[name], owner != file.folder else { continue }
                uses[file.folder, default: [:]][owner, default: []].append("\(file.path) names \(name)")
            }
        }
        self.uses = uses
    }

    /// Which folder declares each top-level type of `files`.
    static func owners(of files: [File]) -> [String: String] {
        var owners: [String: String] = [:]
        for file in files {
            for name in file.source.topLevelTypes { owners[name] = file.folder }
        }
        return owners
    }

    /// Folder → the folders it uses.
    var edges: [String: Set<String>] { uses.mapValues { Set($0.keys) } }

    /// The folders that reach each other round a cycle: each strongly connected set of two folders or more
    /// (Tarjan's algorithm), sorted by their first folder.
    var cycles: [Set<String>] {
        let edges = edges
        var index: [String: Int] = [:], lowLink: [String: Int] = [:], stack: [String] = [], onStack: Set<String> = []
        var found: [Set<String>] = []
        func connect(_ folder: String) {
            index[folder] = index.count
            lowLink[folder] = index[folder]
            stack.append(folder)
            onStack.insert(folder)
            for next in (edges[folder] ?? []).sorted() {
                if index[next] == nil {
                    connect(next)
                    lowLink[folder] = min(lowLink[folder] ?? 0, lowLink[next] ?? 0)
                } else if onStack.contains(next) {
                    lowLink[folder] = min(lowLink[folder] ?? 0, index[next] ?? 0)
                }
            }
            guard lowLink[folder] == index[folder] else { return }
            var component: Set<String> = []
            while let top = stack.popLast() {
                onStack.remove(top)
                component.insert(top)
                if top == folder { break }
            }
            if component.count > 1 { found.append(component) }
        }
        let folders = Set(edges.keys).union(edges.values.joined())
        for folder in folders.sorted() where index[folder] == nil { connect(folder) }
        return found.sorted { ($0.min() ?? "") < ($1.min() ?? "") }
    }

    /// A shortest cycle through the first folder of `component` (a strongly connected set), each step with the
    /// names that make each step: "(root) → Compositing → (root) ((root) → Compositing: Sources/Overlay/Compositor.swift
    /// names PreparedLayer, …; Compositing → (root): Sources/Overlay/Compositing/LayerVariants.swift names Compositor)".
    func describe(_ component: Set<String>) -> String {
        guard let start = component.min() else { return "" }
        // Breadth first inside the component, from `start` back to it.
        var previous: [String: String] = [:], queue = [start], reached = false
        search: while !queue.isEmpty {
            let folder = queue.removeFirst()
            for next in (edges[folder] ?? []).intersection(component).sorted() {
                if next == start { previous[start] = folder; reached = true; break search }
                if previous[next] == nil { previous[next] = folder; queue.append(next) }
            }
        }
        guard reached else { return component.sorted().joined(separator: ", ") }
        var path = [start], folder = previous[start] ?? start
        while folder != start {
            path.insert(folder, at: 0)
            folder = previous[folder] ?? start
        }
        path.insert(start, at: 0)
        let steps = zip(path, path.dropFirst()).map { from, to in
            let evidence = uses[from]?[to] ?? []
            return "\(from) → \(to): " + evidence.prefix(3).joined(separator: ", ") + (evidence.count > 3 ? " and \(evidence.count - 3) more" : "")
        }
        return path.joined(separator: " → ") + " (" + steps.joined(separator: "; ") + ")"
    }
}
