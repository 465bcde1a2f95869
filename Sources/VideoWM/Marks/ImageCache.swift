import Foundation
import Overlay

/// Decoded logos, by path or URL, so a batch decodes (or downloads) each one once.
public final class ImageCache: @unchecked Sendable {
    // Guarded by `lock`: batch workers share one cache.
    private var images: [String: StraightRGBAImage] = [:]
    private let lock = NSLock()

    public init() {}

    public func image(at source: String) throws -> StraightRGBAImage {
        lock.lock()
        defer { lock.unlock() }
        if let cached = images[source] { return cached }
        let decoded = try StillImageReader.read(path: source).image
        images[source] = decoded
        return decoded
    }
}
