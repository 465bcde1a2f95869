import Foundation
import Testing

/// `videowm trace` of one picture: a class of 300, the leaked row's frame at an instant the seed
/// picks, posted as a screenshot, a phone photo and a crop, each naming its row first with exit
/// 0; an unmarked frame, a forgery and a frame marked with another platform's key naming nobody
/// (exit 1), the forgery said to be one. See `StillTraceMedia` for how each picture is made.
@Suite("trace: naming the row behind a still picture", .serialized)
struct StillTraceTests {
    @discardableResult
    func named(_ picture: String, _ label: String) throws -> StillReport {
        let media = try StillTraceMedia.shared.get()
        let result = try media.trace(picture)
        #expect(result.status == 0, "\(label), \(media.context): \(result.stderr)")
        let report = try StillReport(result.stdoutData)
        #expect(report.kind == "still")
        #expect(report.ranking.first?.row == media.row, "\(label), \(media.context): \(report.ranking.prefix(3).map { ($0.row, $0.falseMatchProbability) })")
        #expect(report.identified.map(\.row) == [media.row], "\(label), \(media.context): readings \(report.still?.readings.map(\.text) ?? [])")
        #expect((report.identified.first?.falseMatchProbability ?? 1) <= report.threshold)
        #expect(report.identified.first?.namedBy?.contains("text") == true, "\(label): \(report.identified.first?.namedBy ?? [])")
        let still = try #require(report.still)
        #expect(still.earliestSeconds - 0.05 <= media.time && media.time <= still.latestSeconds + 0.05, "\(label), \(media.context): \(still.timeSeconds)")
        #expect(still.forgery == nil)
        return report
    }

    @Test func aScreenshotOfThePlayerNamesItsRow() throws {
        try named(StillTraceMedia.shared.get().screenshot, "screenshot")
    }

    @Test func aPhonePhotoOfTheScreenNamesItsRow() throws {
        let media = try StillTraceMedia.shared.get()
        #expect(media.photoQuality <= 60, "the photo's JPEG quality is \(media.photoQuality)")
        try named(media.photo, "phone photo")
    }

    @Test func aCropAroundTheMarkNamesItsRow() throws {
        let media = try StillTraceMedia.shared.get()
        let report = try named(media.crop, "crop")
        // The crop shows about a third of the frame.
        #expect((0.2...0.45).contains(report.still?.placement.coverage ?? 0), "\(media.context): \(report.still?.placement.coverage ?? 0)")
    }

    func nobody(_ picture: String, _ label: String) throws -> StillReport {
        let media = try StillTraceMedia.shared.get()
        let result = try media.trace(picture)
        #expect(result.status == 1, "\(label), \(media.context): \(result.stderr)")
        let report = try StillReport(result.stdoutData)
        #expect(report.identified.isEmpty, "\(label), \(media.context): \(report.identified.map(\.row))")
        return report
    }

    @Test func anUnmarkedFrameNamesNobody() throws {
        let report = try nobody(StillTraceMedia.shared.get().unmarked, "unmarked")
        #expect(report.still?.forgery == nil)
    }

    /// A classmate's address typed on a clean frame in the course's style, where the forger liked.
    @Test func aClassmatesAddressTypedOnAFrameIsCalledAForgery() throws {
        let media = try StillTraceMedia.shared.get()
        let report = try nobody(media.forgery, "forgery")
        let message = try #require(report.still?.forgery, "\(media.context)")
        #expect(message.contains("the picture was altered"), "\(message)")
        #expect(report.still?.forgedRows == [media.victim], "\(media.context): \(report.still?.forgedRows ?? [])")
    }

    /// The leaked row's own copy, but marked with another platform's key: its address is real,
    /// its place is not where this key puts it.
    @Test func aFrameMarkedWithAnotherKeyNamesNobody() throws {
        let media = try StillTraceMedia.shared.get()
        let report = try nobody(media.foreign, "another key")
        #expect(report.still?.forgery?.contains("marked without this key") ?? true)
    }
}

/// The parts of `trace --json` for a still that the tests read.
struct StillReport: Decodable {
    struct Row: Decodable {
        var row: Int
        var falseMatchProbability: Double
        var namedBy: [String]?
    }
    struct Still: Decodable {
        struct Reading: Decodable { var text: String, confidence: Double, source: String }
        struct Placement: Decodable { var coverage: Double, featurePairs: Int }
        var timeSeconds: Double, earliestSeconds: Double, latestSeconds: Double
        var placement: Placement
        var readings: [Reading]
        var forgery: String?
        var forgedRows: [Int]
    }
    var kind: String
    var threshold: Double
    var identified: [Row]
    var ranking: [Row]
    var still: Still?

    init(_ json: Data) throws { self = try JSONDecoder().decode(Self.self, from: json) }
}
