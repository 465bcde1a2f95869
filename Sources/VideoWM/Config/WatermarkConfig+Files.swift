import Overlay

extension WatermarkConfig {
    /// The local files the marks read besides the config itself, in layer order: image layers'
    /// files (not http(s) URLs) and text layers' fonts named by path. A server folds them into a
    /// lecture's revision, so a replaced logo or font makes new URLs and new cached files.
    public var localFilesRead: [String] {
        var files: [String] = []
        for layer in layers {
            switch layer.content {
            case .image(let source):
                let lower = source.lowercased()
                if !lower.hasPrefix("http://") && !lower.hasPrefix("https://") { files.append(source) }
            case .text:
                if case .file(let path) = layer.font.source { files.append(path) }
            }
        }
        var seen: Set<String> = []
        return files.filter { seen.insert($0).inserted }
    }
}
