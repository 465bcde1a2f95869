import LeakTrace

/// What the trace of a still picture found (`LeakTraceReport.still`): the instant of the
/// original it shows, where the lecture's frame is in it, what OCR read, and each row's
/// evidence; the rows named are in `LeakTraceReport.identified`.
public struct StillTraceReport: Sendable {
    /// Said when the text names a row whose keyed path puts its mark elsewhere at that instant.
    public static let forgeryMessage = "the e-mail in the picture is not where that student's copy shows it: "
        + "the picture was altered, or marked without this key"

    /// One row's two readings.
    public struct RowEvidence: Sendable {
        /// The row's number (1 for the first after the header).
        public var number: Int
        /// The reading the row's text matched best (joined when it spans two lines), if any.
        public var reading: String?
        /// Characters of the row's text the reading agrees with, and edits between them.
        public var matchedCharacters: Int
        public var edits: Int
        /// The chance that a text unrelated to the row reads this much like it.
        public var textPValue: Double
        /// Whether the reading sits where the row's copy draws its text (nil: the reading says too little).
        public var located: Bool?
        /// The mean opacity of marks inside the row's keyed mark, and the chance that a spot of its
        /// path holds as much.
        public var markOpacity: Double?
        public var positionPValue: Double
        /// When the text is read where the row's copy draws it: the chance that a mark put where
        /// somebody liked, not knowing the key, lies as close to one of the row's places.
        public var forgeryChance: Double?
    }

    /// The still's size, upright, and the original's display size.
    public var width: Int
    public var height: Int
    public var displayWidth: Int
    public var displayHeight: Int
    /// The instant found, seconds on the original's clock, and the instants that fit as well.
    public var time: Double
    public var times: ClosedRange<Double>
    /// The original's display → the still's pixels.
    public var placement: Homography
    /// Corner features the still and the frame share that agree with the placement.
    public var featurePairs: Int
    /// The share of the original's display the still shows.
    public var coverage: Double
    /// Lines OCR read where the marks are.
    public var readings: [MarkReading]
    /// Every row's evidence, strongest first (the ranking's order).
    public var rows: [RowEvidence]
    /// When nobody is named: rows the text names whose copies put the mark elsewhere.
    public var forged: [Int]

    /// Where the original's display corners are in the still, clockwise from the top left.
    public var corners: [(x: Double, y: Double)] {
        placement.corners(of: PlaneRect(minX: 0, minY: 0, maxX: Double(displayWidth), maxY: Double(displayHeight))) ?? []
    }

    /// The forgery message, when the text names a row the marks' place contradicts.
    public var forgery: String? { forged.isEmpty ? nil : Self.forgeryMessage }
}
