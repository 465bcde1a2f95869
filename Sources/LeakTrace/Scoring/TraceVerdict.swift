/// The outcome of scoring every row: the ranking, and which rows (if any) are identified.
///
/// A row is identified when its false-match probability is at most
/// `identificationThreshold`: fewer than one chance in a thousand that a row which did not
/// leak the copy would explain the leak as well, allowing for the number of rows tried. An
/// unmarked copy, or one whose marks are all cropped away, identifies nobody; a copy with too
/// few slots in it may not reach the threshold even for its true row.
public struct TraceVerdict: Sendable {
    public static let identificationThreshold = 1e-3

    /// Every row's score, strongest first.
    public var ranking: [RowScore]

    public init(ranking: [RowScore]) { self.ranking = ranking }

    /// The rows whose false-match probability meets the threshold, strongest first. Usually
    /// one; two rows can both match when their marks take the same path (the same seed text),
    /// or when a leak was spliced from two copies.
    public var identified: [RowScore] {
        ranking.filter { $0.falseMatchProbability <= Self.identificationThreshold }
    }
}
