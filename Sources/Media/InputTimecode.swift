import Animation
internal import CFFmpeg

extension InputStream {
    /// A metadata tag of the stream ("timecode", "language").
    package func tag(_ key: String) -> String? {
        av_dict_get(pointer.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
    }
}

extension InputFile {
    /// A metadata tag of the container.
    func tag(_ key: String) -> String? {
        av_dict_get(context.pointee.metadata, key, nil, 0).map { String(cString: $0.pointee.value) }
    }

    /// The timecode clock of `video` for `{timecode}`: its frame rate, counting from the start
    /// timecode the file carries (FFmpeg exports a QuickTime `tmcd` track, an MXF or MPEG-TS
    /// timecode as a "timecode" tag on the video stream, the container or the timecode track),
    /// or from 00:00:00:00. A tag that is not a timecode is said once and ignored.
    package func timecode(of video: InputStream, warn: WarningHandler) -> Timecode? {
        guard let rate = video.video.frameRate else { return nil }
        let tag = video.tag("timecode") ?? tag("timecode") ?? streams.lazy.compactMap { $0.tag("timecode") }.first
        if let tag {
            do {
                return try Timecode(rateNumerator: Int64(rate.numerator), rateDenominator: Int64(rate.denominator), start: tag)
            } catch {
                warn("\(name): \(error); {timecode} counts from 00:00:00:00")
            }
        }
        return try? Timecode(rateNumerator: Int64(rate.numerator), rateDenominator: Int64(rate.denominator))
    }
}
