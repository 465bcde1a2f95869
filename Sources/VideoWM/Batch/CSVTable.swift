import Foundation

/// A CSV file read per RFC 4180: a header row naming the columns, then one record per row.
///
/// Quoted fields may hold commas, doubled quotes and line breaks; records end with CRLF,
/// LF or a lone CR; a UTF-8 byte-order mark is ignored; blank lines are skipped. Values are
/// kept exactly as written (no trimming), because they end up in watermarks verbatim.
public struct CSVTable: Sendable, Equatable {
    /// One data record and where it came from, for error messages.
    public struct Row: Sendable, Equatable {
        /// 1 for the first record after the header.
        public let number: Int
        /// The file line on which the record starts (a quoted field may span several).
        public let line: Int
        /// The row's value in each column, by the header's names.
        public let values: [String: String]
    }

    /// The file the table was read from, for messages.
    public let file: String
    /// Column names in file order, with surrounding spaces removed.
    public let columns: [String]
    /// The records after the header, in file order.
    public let rows: [Row]

    /// Reads the CSV file at `path`.
    public static func load(path: String) throws -> CSVTable {
        guard FileManager.default.fileExists(atPath: path) else { throw InputError.missing(path) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError(file: path, problem: .unreadable(what: "the CSV file"))
        }
        return try parse(data, file: path)
    }

    /// Parses CSV bytes; `file` names the source in errors.
    public static func parse(_ data: Data, file: String) throws -> CSVTable {
        let text = try decodeUTF8(data, file: file)
        var records = try CSVRecordScanner(text: text, file: file).records()
        guard !records.isEmpty else { throw CSVError(file: file, problem: "is empty (the first line must name the columns, e.g. email,name,id)") }
        let header = records.removeFirst()
        let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        var seen: [String: Int] = [:]
        for (index, name) in columns.enumerated() {
            guard !name.isEmpty else { throw CSVError(file: file, line: header.line, problem: "column \(index + 1) of the header has no name") }
            if let earlier = seen[name] {
                throw CSVError(file: file, line: header.line, problem: "the column name '\(name)' appears twice (columns \(earlier + 1) and \(index + 1))")
            }
            seen[name] = index
        }
        let rows = try records.enumerated().map { offset, record in
            guard record.fields.count == columns.count else {
                throw CSVError(file: file, line: record.line, row: offset + 1, problem: "\(record.fields.count) field(s), but the header names \(columns.count)")
            }
            return Row(number: offset + 1, line: record.line, values: Dictionary(uniqueKeysWithValues: zip(columns, record.fields)))
        }
        return CSVTable(file: file, columns: columns, rows: rows)
    }

    /// Strict UTF-8 (a mis-saved Latin-1 file must not become replacement characters in a watermark).
    private static func decodeUTF8(_ data: Data, file: String) throws -> String {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var line = 1
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: throw CSVError(file: file, line: line, problem: "not valid UTF-8 (save the file as UTF-8)")
            }
        }
    }
}

/// One raw record: its fields and the line it starts on.
struct CSVRecord: Equatable {
    var fields: [String]
    var line: Int
}

/// The RFC 4180 state machine, over Unicode scalars so that "\r\n" is two steps, not one Character.
struct CSVRecordScanner {
    private let scalars: [Unicode.Scalar]
    private let file: String

    init(text: String, file: String) {
        scalars = Array(text.unicodeScalars)
        self.file = file
    }

    func records() throws -> [CSVRecord] {
        var records: [CSVRecord] = []
        var fields: [String] = []
        var field = String.UnicodeScalarView()
        var line = 1
        var recordLine = 1
        /// Whether the current record has anything at all, so `""` on its own line is a value, not a blank line.
        var recordStarted = false
        var index = 0

        func endField() { fields.append(String(field)); field = String.UnicodeScalarView() }
        func endRecord() {
            endField()
            records.append(CSVRecord(fields: fields, line: recordLine))
            fields = []
            recordStarted = false
        }
        func isLineBreak(at i: Int) -> Bool { i < scalars.count && (scalars[i] == "\r" || scalars[i] == "\n") }
        /// Steps over the line break at `index`; CRLF counts as one.
        func skipLineBreak() {
            if scalars[index] == "\r", index + 1 < scalars.count, scalars[index + 1] == "\n" { index += 1 }
            index += 1
            line += 1
        }

        while index < scalars.count {
            if !recordStarted {
                if isLineBreak(at: index) { skipLineBreak(); continue }
                recordStarted = true
                recordLine = line
            }
            let c = scalars[index]
            if c == "\"" && field.isEmpty {
                try readQuoted(into: &field, index: &index, line: &line)
                if index < scalars.count, scalars[index] != ",", !isLineBreak(at: index) {
                    throw CSVError(file: file, line: line, problem: "unexpected '\(scalars[index].escaped(asASCII: false))' after a closing quote (inside quotes, write a quote as \"\")")
                }
            } else if c == "," {
                endField()
                index += 1
            } else if isLineBreak(at: index) {
                skipLineBreak()
                endRecord()
            } else if c == "\"" {
                throw CSVError(file: file, line: line, problem: "a quote inside an unquoted field (quote the whole field and double the quote: \"a \"\"b\"\"\")")
            } else {
                field.append(c)
                index += 1
            }
        }
        if recordStarted { endRecord() }
        return records
    }

    /// Reads a quoted field starting at the opening quote; leaves `index` after the closing one.
    private func readQuoted(into field: inout String.UnicodeScalarView, index: inout Int, line: inout Int) throws {
        let openingLine = line
        index += 1
        while index < scalars.count {
            let c = scalars[index]
            if c == "\"" {
                guard index + 1 < scalars.count, scalars[index + 1] == "\"" else { index += 1; return }
                field.append("\"")
                index += 2
                continue
            }
            let isCRLF = c == "\r" && index + 1 < scalars.count && scalars[index + 1] == "\n"
            if c == "\n" || (c == "\r" && !isCRLF) { line += 1 }
            field.append(c)
            index += 1
        }
        throw CSVError(file: file, line: openingLine, problem: "a quoted field is never closed (a '\"' is missing)")
    }
}
