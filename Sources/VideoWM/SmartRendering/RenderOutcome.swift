/// What became of a job's video (`--render`): rendered in full, or smart-rendered with this
/// share re-encoded.
public struct RenderOutcome: Sendable, Equatable {
    /// Smart rendering was used.
    public var isSmart: Bool
    /// The line `auto` prints once the output has its first frame: a fallback to a full render the
    /// user could act on (nil otherwise: an always-on mark, an explicit mode, smart rendering).
    public var notice: String?
    /// Why `auto` rendered as it did, notice or not ("a mark is visible in every GOP"); nil for an
    /// explicit mode followed as asked.
    public var reason: String?
    /// Seconds of the video re-encoded and in all (smart rendering only).
    public var reencodedSeconds: Double?
    /// Seconds of video in all (smart rendering only).
    public var totalSeconds: Double?

    /// 0…1: the share of the video's duration re-encoded; 1 for a full render.
    public var reencodedShare: Double {
        guard isSmart, let reencodedSeconds, let totalSeconds, totalSeconds > 0 else { return isSmart ? 0 : 1 }
        return reencodedSeconds / totalSeconds
    }

    /// An outcome; the reason is read from the notice when not given.
    public init(isSmart: Bool, notice: String? = nil, reason: String? = nil, reencodedSeconds: Double? = nil, totalSeconds: Double? = nil) {
        self.isSmart = isSmart
        self.notice = notice
        self.reason = reason ?? notice.flatMap(Self.reason(inNotice:))
        self.reencodedSeconds = reencodedSeconds
        self.totalSeconds = totalSeconds
    }

    /// "full (a mark is visible in every GOP)": how the video was rendered and why, for `-v` and JSON.
    public var decision: String? {
        reason.map { "\(isSmart ? "smart" : "full") (\($0))" }
    }

    /// The reason inside a notice "render: full (REASON)".
    private static func reason(inNotice notice: String) -> String? {
        guard let open = notice.firstIndex(of: "("), notice.hasSuffix(")") else { return nil }
        return String(notice[notice.index(after: open)..<notice.index(before: notice.endIndex)])
    }

    /// "re-encoded 12.0 s of 60.0 s (20%)", for smart rendering.
    public var summary: String? {
        guard isSmart, let reencodedSeconds, let totalSeconds else { return nil }
        return reencodedSummary(reencodedSeconds: reencodedSeconds, totalSeconds: totalSeconds)
    }

    /// A full render, as asked.
    public static let full = RenderOutcome(isSmart: false)
}
