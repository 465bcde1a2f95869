import Overlay

extension Frame {
    /// The compositor's canvas over the top-left `width`×`height` of this frame (writable,
    /// planar YUV: `pixelFormat.planarLayout` is not nil), with the frame's colour matrix, and
    /// its transfer and primaries (`colorSpace` when a still's ICC profile says more).
    func planarCanvas(width: Int, height: Int, colorSpace: FrameColorSpace? = nil) -> PlanarYUVCanvas {
        guard let layout = pixelFormat.planarLayout else { preconditionFailure("a canvas needs a planar YUV frame") }
        precondition(width <= self.width && height <= self.height, "canvas larger than the frame")
        func canvasPlane(_ index: Int) -> PlanarYUVCanvas.Plane {
            let plane = plane(index)!
            return PlanarYUVCanvas.Plane(base: UnsafeMutableRawPointer(plane.base), bytesPerRow: plane.bytesPerRow)
        }
        return PlanarYUVCanvas(width: width, height: height, luma: canvasPlane(0), u: canvasPlane(1), v: canvasPlane(2),
                               chromaShiftX: layout.chromaShiftX, chromaShiftY: layout.chromaShiftY, bitDepth: layout.bitDepth,
                               matrix: color.yuvMatrix(height: self.height, format: pixelFormat),
                               colorSpace: colorSpace ?? color.frameColorSpace)
    }
}
