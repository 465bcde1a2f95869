import Overlay

extension Frame {
    /// Runs `body` with the compositor's canvas over the top-left `width`×`height` of this frame
    /// (writable, planar YUV: `pixelFormat.planarLayout` is not nil), with the frame's colour
    /// matrix, and its transfer and primaries (`colorSpace` when a still's ICC profile says more).
    /// The canvas is a view of the frame's planes, valid for the call only (the frame is kept
    /// alive for it).
    package func withPlanarCanvas<R>(width: Int, height: Int, colorSpace: FrameColorSpace? = nil, _ body: (PlanarYUVCanvas) throws -> R) rethrows -> R {
        guard let layout = pixelFormat.planarLayout else { preconditionFailure("a canvas needs a planar YUV frame") }
        precondition(width <= self.width && height <= self.height, "canvas larger than the frame")
        return try withExtendedLifetime(self) {
            func canvasPlane(_ index: Int) -> PlanarYUVCanvas.Plane {
                guard let base = dataPointers[index] else { preconditionFailure("a planar YUV frame has three planes") }
                return PlanarYUVCanvas.Plane(base: UnsafeMutableRawPointer(base), bytesPerRow: Int(lineSizes[index]))
            }
            let canvas = PlanarYUVCanvas(width: width, height: height, luma: canvasPlane(0), u: canvasPlane(1), v: canvasPlane(2),
                                         chromaShiftX: layout.chromaShiftX, chromaShiftY: layout.chromaShiftY, bitDepth: layout.bitDepth,
                                         matrix: color.yuvMatrix(height: self.height, format: pixelFormat),
                                         colorSpace: colorSpace ?? color.frameColorSpace)
            return try body(canvas)
        }
    }
}
