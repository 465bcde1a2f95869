import Foundation
import Overlay

/// A decoded logo: a picture, or an animation's frames with their timing.
public enum Logo: Sendable {
    /// A still picture.
    case still(StraightRGBAImage)
    /// An animation's frames, with their timing.
    case animated(AnimatedImage)

    /// Decodes the logo at `path` (a local file), naming it `name` in errors: an animated
    /// GIF, APNG or WebP as an animation, anything else as a still.
    static func read(path: String, name: String) throws -> Logo {
        if let animation = try AnimatedImageReader.read(path: path, name: name) { return .animated(animation) }
        return .still(try StillImageReader.read(path: path, name: name).image)
    }
}

/// Decoded logos, by path or URL, so a batch decodes (or downloads) each one once.
public final class ImageCache: @unchecked Sendable {
    // Guarded by `lock`: batch workers share one cache.
    private var logos: [String: Logo] = [:]
    private let lock = NSLock()

    /// An empty cache.
    public init() {}

    /// The logo at `source`, a path or an http(s) URL (downloaded once).
    public func logo(at source: String) throws -> Logo {
        lock.lock()
        defer { lock.unlock() }
        if let cached = logos[source] { return cached }
        let decoded = RemoteImage.isURL(source)
            ? try RemoteImage.withDownloadedFile(source) { try Logo.read(path: $0, name: source) }
            : try Logo.read(path: source, name: source)
        logos[source] = decoded
        return decoded
    }

    /// The logo at `source` as one picture: an animation's first frame.
    public func image(at source: String) throws -> StraightRGBAImage {
        switch try logo(at: source) {
        case .still(let image): return image
        case .animated(let animation): return animation.frames[0]
        }
    }
}
