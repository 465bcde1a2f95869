/// A `Range` request header, read as RFC 9110 §14 says: one byte range of a representation
/// of `size` bytes. Only a single `bytes=` range is honoured (a player never asks for more);
/// a header that does not parse, or asks for several ranges or another unit, is ignored and
/// the whole file is sent (§14.2: a server MAY ignore the Range header).
enum ByteRange: Equatable {
    /// Send everything (no header, or one to ignore).
    case whole
    /// Send `length` bytes from `offset` (206).
    case part(offset: UInt64, length: UInt64)
    /// The range starts past the end (or asks for a suffix of nothing): 416.
    case unsatisfiable

    init(header: String?, size: UInt64) {
        guard let header else { self = .whole; return }
        let text = header.trimmingSpaces
        guard text.lowercased().hasPrefix("bytes=") else { self = .whole; return }
        let spec = String(text.dropFirst(6)).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = String(spec[..<dash]).trimmingSpaces
        let last = String(spec[spec.index(after: dash)...]).trimmingSpaces
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else {
            self = .whole
            return
        }
        if first.isEmpty {
            // A suffix: the last N bytes (all of them when N ≥ size).
            guard let count = UInt64(last) else { self = .whole; return }
            guard count > 0, size > 0 else { self = .unsatisfiable; return }
            let length = min(count, size)
            self = .part(offset: size - length, length: length)
            return
        }
        guard let start = UInt64(first) else { self = .unsatisfiable; return }  // more digits than any file has bytes
        var end = size == 0 ? 0 : size - 1
        // A last position with more digits than any size is past the end: to the end, then.
        if !last.isEmpty, let requested = UInt64(last) {
            guard requested >= start else { self = .whole; return }  // last before first: invalid, ignored
            end = min(requested, end)
        }
        self = .init(start: start, end: end, size: size)
    }

    private init(start: UInt64, end: UInt64, size: UInt64) {
        guard start < size else { self = .unsatisfiable; return }
        self = .part(offset: start, length: end - start + 1)
    }
}

private extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
