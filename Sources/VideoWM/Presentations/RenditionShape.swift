import Animation

// What a row of a ladder (issue 25, Renditions/LectureLadder) changes about a presentation row:
// its own picture size and rate, the cuts of the whole ladder, which tracks its fragments carry
// (a video rendition carries the video alone, an audio rendition one audio stream), and one
// media timeline for every track of every rendition.

/// The picture one `encoded` rendition of a ladder is made at: its size (a size request, as
/// `--height` makes one; nil keeps the input's) and its rate, under a decoder-buffer cap so a
/// playlist can declare a peak before a segment exists.
struct RenditionPicture: Hashable, Sendable {
    var scale: ScaleRequest?
    /// Bits per second, average.
    var bitRate: Int
    /// The decoder buffer (VBV): fill rate in bits per second and size in bits; nil for encoders without one.
    var maxRate: Int?
    var bufferSize: Int?
}


extension EncodeSettings {
    /// These settings with a rendition's size and rate in place of the user's own.
    func encoding(_ picture: RenditionPicture) -> EncodeSettings {
        var settings = self
        settings.scale = picture.scale
        settings.upscale = false
        settings.bitRate = picture.bitRate
        settings.crf = nil
        settings.controls.maxRate = picture.maxRate
        settings.controls.bufferSize = picture.bufferSize
        return settings
    }
}

/// How a ladder's row differs from a presentation's single row.
struct RenditionShape {
    /// The ladder's plan (one set of cuts for every rendition).
    var plan: PresentationPlan
    /// `encoded` renditions: their picture; nil for the rendition of the input's own packets (`sharedCopies`).
    var picture: RenditionPicture?
    /// Whether its fragments carry the video track.
    var carriesVideo: Bool
    /// The carried tracks (indices into `PresentationSource.tracks`) its fragments hold.
    var tracks: [Int]
    /// Which segments the row re-encodes; nil: every one (a rendition's clean encode).
    var reencodes: [Bool]?
    /// Time zero of every track's media time (`tfdt`), on the marks' clock's source: the
    /// ladder's earliest decode time, so every rendition's tracks share one timeline. The
    /// initialization segment then carries no edit lists (players that ignore them and
    /// players that honour them see the same times).
    var timelineOrigin: PresentationTime
}

extension PresentationPlan {
    /// The same cuts made another way: an `encoded` rendition of a ladder whose other rendition
    /// copies the input follows the copy's closed cuts, where the pictures of each segment are
    /// also the input packets it would decode.
    func rendered(as rendering: PresentationRendering) -> PresentationPlan {
        precondition(rendering != .copied && self.rendering != .copied, "a copied plan's positions are packets, not pictures")
        return PresentationPlan(rendering: rendering, timeBase: timeBase, firstTimestamp: firstTimestamp, pictureTimestamps: pictureTimestamps,
                                endTimestamp: endTimestamp, cuts: cuts, positions: positions, independent: independent,
                                decodedPackets: decodedPackets)
    }

    /// Whether rows of `other` can be made in one pass with rows of this plan: the same segments
    /// of the same pictures.
    func hasSameSegments(as other: PresentationPlan) -> Bool {
        cuts == other.cuts && positions == other.positions && timeBase == other.timeBase && firstTimestamp == other.firstTimestamp
    }
}

extension PresentationSource {
    /// The plan a ladder cuts every rendition at: the input's closed cuts when one rendition
    /// copies the input's packets, else the cuts of an encoded presentation.
    func ladderPlan(copyingInput: Bool) -> PresentationPlan {
        copyingInput ? plan(.sharedCopies) : encodedPlan
    }

    /// The decode time of the first video packet an `encoded` rendition with `setup` writes, or
    /// the input's first (copied renditions), in the video's time base.
    func firstDecodeTimestamp(plan: PresentationPlan, reorderDelay: Int?) -> Int64 {
        guard let reorderDelay else { return index.decodeTimestamps[0] }
        return plan.encodedDecodeTimestamps(reorderDelay: reorderDelay)[0]
    }

    /// The first decode time of carried track `track` on its own clock, as the ladder's timeline sees it.
    func firstDecodeTime(ofTrack track: Int) throws -> PresentationTime? {
        let other = tracks[track]
        if let encoderName = other.reencoder {
            let audio = try audioCache.audio(of: other.stream) {
                try EncodedAudio.encode(stream: other.stream, of: input, encoderName: encoderName)
            }
            guard let first = audio.packets.first, let ticks = first.decodeTimestamp ?? first.presentationTimestamp else { return nil }
            return PresentationTime(value: ticks * Int64(audio.timeBase.numerator), timescale: Int64(audio.timeBase.denominator))
        }
        guard let first = index.otherStreams[other.stream]?.first, let ticks = first.dts ?? first.pts else { return nil }
        let timeBase = try InputFile(path: input).stream(other.stream).timeBase
        return PresentationTime(value: ticks * Int64(timeBase.numerator), timescale: Int64(timeBase.denominator))
    }
}

extension Rational {
    /// `time` in ticks of this time base, rounded down.
    func ticks(flooring time: PresentationTime) -> Int64 {
        let numerator = Int128(time.value) * Int128(denominator), denominator = Int128(time.timescale) * Int128(self.numerator)
        let quotient = numerator / denominator
        return Int64(numerator % denominator != 0 && (numerator < 0) != (denominator < 0) ? quotient - 1 : quotient)
    }
}
