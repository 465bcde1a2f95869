/// The kind of a track, as key usage rules and manifests tell tracks apart.
public enum TrackKind: String, Sendable, Hashable {
    case video, audio, text
}
