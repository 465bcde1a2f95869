// Media, the FFmpeg boundary, is a target of its own below VideoWM (issue 38), so the compiler keeps FFmpeg out
// of the rest of the library. Its public types (OutputTarget, VideoCodec, MediaDescription, the typed errors…)
// were VideoWM's and stay part of VideoWM's API: re-exported here, once for the whole module, so `import VideoWM`
// keeps giving them to the command line, VideoWMServe, the tests and other packages, as swift-nio's `NIO`
// re-exports `NIOCore`.
@_exported import Media

/// Media's stream of an input file, ahead of Foundation's `InputStream` (a byte stream) in every file of VideoWM, as
/// it was when the type was VideoWM's own.
typealias InputStream = Media.InputStream
