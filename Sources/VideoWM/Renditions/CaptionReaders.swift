import Animation

/// Reads SubRip (`.srt`) captions: blocks of an optional number line, a timing line
/// (`00:00:01,000 --> 00:00:04,000`) and text lines, separated by blank lines. Cue text is made
/// WebVTT's: `<b>`, `<i>`, `<u>` kept, other tags (`<font>`) and ASS overrides (`{\an8}`)
/// dropped, `&`, `<` and `>` escaped. A timing line that does not read, an end before its
/// start, or a block with no timing is an error naming the line.
enum SubRipReader {
    static func cues(in text: String, file: String) throws -> [CaptionCue] {
        let lines = CaptionText.lines(text)
        var cues: [CaptionCue] = []
        var index = 0
        while index < lines.count {
            if lines[index].trimmingCharacters(in: .whitespaces).isEmpty { index += 1; continue }
            let blockStart = index
            // An optional cue number, then the timing line.
            var timingIndex = index
            if !lines[index].contains("-->") {
                guard lines[index].trimmingCharacters(in: .whitespaces).allSatisfy(\.isNumber) else {
                    throw CaptionText.problem(file, line: blockStart + 1, "expected a cue number or a timing line such as 00:00:01,000 --> 00:00:04,000, got '\(lines[index].prefix(60))'")
                }
                timingIndex = index + 1
                guard timingIndex < lines.count, lines[timingIndex].contains("-->") else {
                    let got = timingIndex < lines.count ? lines[timingIndex] : "the end of the file"
                    throw CaptionText.problem(file, line: timingIndex + 1, "expected the timing line of cue \(lines[index].trimmingCharacters(in: .whitespaces)), such as 00:00:01,000 --> 00:00:04,000, got '\(got.prefix(60))'")
                }
            }
            let (start, end) = try CaptionText.timing(lines[timingIndex], file: file, line: timingIndex + 1, decimalSeparators: [",", "."]).times
            index = timingIndex + 1
            var textLines: [String] = []
            while index < lines.count && !lines[index].trimmingCharacters(in: .whitespaces).isEmpty {
                textLines.append(lines[index])
                index += 1
            }
            let payload = textLines.map(CaptionText.webVTTText(fromSubRip:)).filter { !$0.isEmpty }
            if !payload.isEmpty { cues.append(CaptionCue(start: start, end: end, text: payload.joined(separator: "\n"))) }
        }
        return cues
    }
}

/// Reads WebVTT (`.vtt`) captions: the `WEBVTT` line, header lines, then cue blocks (an
/// optional identifier, the timing line with optional settings, the payload), skipping `NOTE`,
/// `STYLE` and `REGION` blocks. The payload is WebVTT already and kept as written (a line
/// holding "-->" is an error, as the format says).
enum WebVTTReader {
    static func cues(in text: String, file: String) throws -> [CaptionCue] {
        let lines = CaptionText.lines(text)
        guard let first = lines.first, first == "WEBVTT" || first.hasPrefix("WEBVTT ") || first.hasPrefix("WEBVTT\t") else {
            throw CaptionText.problem(file, line: 1, "a WebVTT file starts with a WEBVTT line")
        }
        var index = 1
        // Header lines up to the first blank line.
        while index < lines.count && !lines[index].isEmpty {
            if lines[index].contains("-->") { throw CaptionText.problem(file, line: index + 1, "a cue needs a blank line between it and the WEBVTT header") }
            index += 1
        }
        var cues: [CaptionCue] = []
        while index < lines.count {
            if lines[index].isEmpty { index += 1; continue }
            let blockStart = index
            var block: [String] = []
            while index < lines.count && !lines[index].isEmpty {
                block.append(lines[index])
                index += 1
            }
            let head = block[0]
            if head == "NOTE" || head.hasPrefix("NOTE ") || head.hasPrefix("NOTE\t") || head == "STYLE" || head == "REGION" { continue }
            let timingOffset = head.contains("-->") ? 0 : 1
            guard timingOffset < block.count, block[timingOffset].contains("-->") else {
                throw CaptionText.problem(file, line: blockStart + 1, "expected a timing line such as 00:01.000 --> 00:04.000 after the cue identifier '\(head.prefix(60))'")
            }
            let timing = try CaptionText.timing(block[timingOffset], file: file, line: blockStart + timingOffset + 1, decimalSeparators: ["."])
            let payload = Array(block[(timingOffset + 1)...])
            if let bad = payload.firstIndex(where: { $0.contains("-->") }) {
                throw CaptionText.problem(file, line: blockStart + timingOffset + 2 + bad, "a cue's text may not contain '-->' (a missing blank line between cues?)")
            }
            guard !payload.isEmpty else { continue }
            cues.append(CaptionCue(start: timing.times.start, end: timing.times.end, text: payload.joined(separator: "\n"), settings: timing.settings))
        }
        return cues
    }
}

/// What both readers share: lines, timestamps and SubRip's markup turned into WebVTT's.
enum CaptionText {
    /// Lines without their terminators (LF, CRLF or CR).
    static func lines(_ text: String) -> [String] {
        text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    static func problem(_ file: String, line: Int, _ detail: String) -> MediaError {
        MediaError(file: file, detail: "line \(line): \(detail)")
    }

    /// `START --> END [settings]`; the end at or after the start.
    static func timing(_ line: String, file: String, line number: Int, decimalSeparators: Set<Character>) throws
        -> (times: (start: PresentationTime, end: PresentationTime), settings: String) {
        let halves = line.components(separatedBy: "-->")
        guard halves.count == 2 else { throw problem(file, line: number, "expected START --> END, got '\(line.prefix(80))'") }
        let startText = halves[0].trimmingCharacters(in: .whitespaces)
        let rest = halves[1].trimmingCharacters(in: .whitespaces)
        let endText = String(rest.prefix { $0 != " " && $0 != "\t" })
        let settings = rest.dropFirst(endText.count).trimmingCharacters(in: .whitespaces)
        guard let start = timestamp(startText, decimalSeparators: decimalSeparators) else {
            throw problem(file, line: number, "'\(startText.prefix(40))' is not a time such as 00:01:02\(decimalSeparators.contains(",") ? "," : ".")500")
        }
        guard let end = timestamp(endText, decimalSeparators: decimalSeparators) else {
            throw problem(file, line: number, "'\(endText.prefix(40))' is not a time such as 00:01:02\(decimalSeparators.contains(",") ? "," : ".")500")
        }
        guard end >= start else { throw problem(file, line: number, "the cue ends (\(endText)) before it starts (\(startText))") }
        return ((start, end), settings)
    }

    /// `[hh:]mm:ss.ttt` (hours of any length, minutes and seconds under 60, milliseconds three digits).
    static func timestamp(_ text: String, decimalSeparators: Set<Character>) -> PresentationTime? {
        guard let separator = text.lastIndex(where: { decimalSeparators.contains($0) }) else { return nil }
        let fraction = text[text.index(after: separator)...]
        let clock = text[..<separator].split(separator: ":", omittingEmptySubsequences: false)
        guard fraction.count == 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }), (2...3).contains(clock.count),
              clock.allSatisfy({ !$0.isEmpty && $0.count <= 9 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return nil }
        let numbers = clock.compactMap { Int64($0) }
        guard numbers.count == clock.count, let milliseconds = Int64(fraction) else { return nil }
        let (hours, minutes, seconds) = numbers.count == 3 ? (numbers[0], numbers[1], numbers[2]) : (0, numbers[0], numbers[1])
        guard minutes < 60, seconds < 60, clock.suffix(2).allSatisfy({ $0.count == 2 }) else { return nil }
        return PresentationTime(milliseconds: ((hours * 60 + minutes) * 60 + seconds) * 1000 + milliseconds)
    }

    /// "hh:mm:ss.ttt", rounded to the nearest millisecond; negative times are 0.
    static func webVTTTimestamp(_ time: PresentationTime) -> String {
        let milliseconds = max(0, Int64((Int128(time.value) * 1000 * 2 + Int128(time.timescale)) / (Int128(time.timescale) * 2)))
        let hours = milliseconds / 3_600_000, minutes = milliseconds / 60_000 % 60, seconds = milliseconds / 1000 % 60
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let ms = milliseconds % 1000
        return "\(two(hours)):\(two(minutes)):\(two(seconds)).\(ms < 10 ? "00" : ms < 100 ? "0" : "")\(ms)"
    }

    /// One SubRip text line as WebVTT cue text.
    static func webVTTText(fromSubRip line: String) -> String {
        var out = ""
        var rest = Substring(line)
        while let c = rest.first {
            if c == "{", rest.hasPrefix("{\\"), let close = rest.firstIndex(of: "}") {
                rest = rest[rest.index(after: close)...]  // an ASS override such as {\an8}
                continue
            }
            if c == "<", let close = rest.firstIndex(of: ">") {
                let tag = rest[rest.index(after: rest.startIndex)..<close].lowercased()
                if ["b", "i", "u", "/b", "/i", "/u"].contains(tag) { out += "<\(tag)>" }
                rest = rest[rest.index(after: close)...]
                continue
            }
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(c)
            }
            rest = rest.dropFirst()
        }
        // With '>' escaped, "-->" (which a cue's text may not hold) cannot appear.
        return out.trimmingCharacters(in: .whitespaces)
    }
}
