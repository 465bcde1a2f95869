/// A mistake in a watermark config: the file, the JSON path of the field
/// (`watermarks[1].opacity`, `$` for the document as a whole) and what is wrong with it.
public struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The config file.
    public var file: String
    /// The JSON path of the field at fault (`watermarks[1].opacity`), `$` for the whole document.
    public var path: String
    /// What is wrong, in a phrase.
    public var problem: String

    /// A config mistake.
    public init(file: String, path: String, problem: String) {
        self.file = file
        self.path = path
        self.problem = problem
    }

    public var description: String { "\(file): \(path): \(problem)" }
}

/// A mistake in a batch's CSV file, or in what one of its rows resolves to: the file, the
/// line and row when the mistake has one, and what is wrong.
public struct CSVError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The CSV file.
    public var file: String
    /// The file line (a quoted field may span several).
    public var line: Int?
    /// 1 for the first record after the header.
    public var row: Int?
    /// What is wrong, in a phrase.
    public var problem: String

    /// A CSV mistake, at a line and row when it has one.
    public init(file: String, line: Int? = nil, row: Int? = nil, problem: String) {
        self.file = file
        self.line = line
        self.row = row
        self.problem = problem
    }

    public var description: String {
        var place = file
        if let line { place += ": line \(line)" + (row.map { " (row \($0))" } ?? "") }
        return "\(place): \(problem)"
    }
}
