import Animation

/// A decoded animated logo (GIF, APNG, animated WebP): every frame as a full picture, already
/// composed by the decoder (disposal and blending applied), and how long each is shown.
public struct AnimatedImage: Sendable, Equatable {
    /// Straight-alpha frames, all of one size.
    public let frames: [StraightRGBAImage]
    /// Which frame shows at a presentation time: the animation loops from time zero.
    public let loop: FrameLoop

    /// Frames with their display durations (as the file gives them; the decoder applies any
    /// policy such as browsers' 0.1 s for GIF delays of 0 or 0.01 s).
    public init(frames: [StraightRGBAImage], durations: [PresentationTime]) {
        precondition(!frames.isEmpty && frames.count == durations.count, "one duration per frame, at least one frame")
        precondition(frames.allSatisfy { $0.width == frames[0].width && $0.height == frames[0].height },
                     "animation frames differ in size")
        self.frames = frames
        self.loop = FrameLoop(durations: durations)
    }

    public var width: Int { frames[0].width }
    public var height: Int { frames[0].height }

    /// The frame shown at `time`.
    public func frameIndex(at time: PresentationTime) -> Int { loop.frameIndex(at: time) }
}
