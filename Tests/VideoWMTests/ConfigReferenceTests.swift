import Foundation
import Testing
@testable import VideoWM

/// The config's field table is the one source of what a layer takes: `videowm help config` and
/// docs/man/videowm-config.5 are made from it, and docs/reference/config.md's table must list the
/// same fields and sub-fields, each with the values and default the table declares.
@Suite("config reference")
struct ConfigReferenceTests {
    static let reference = ArchitectureTests.root.appendingPathComponent("docs/reference/config.md")
    static let manPage = ArchitectureTests.root.appendingPathComponent("docs/man/videowm-config.5")

    /// The rows of the reference's field table: field (`outline.width` for a sub-field) → its
    /// "values and default" column.
    static func referenceRows() throws -> [String: String] {
        let text = try String(contentsOf: reference, encoding: .utf8)
        var rows: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5 else { continue }
            rows[cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = cells[3]
        }
        return rows
    }

    /// Every declared field and sub-field, with its declared values and default.
    static var declared: [String: String] {
        var fields: [String: String] = [:]
        for field in LayerFields.all {
            fields[field.key] = field.values
            for sub in field.subfields { fields["\(field.key).\(sub.key)"] = sub.values }
        }
        return fields
    }

    @Test func referenceListsEveryFieldWithItsValuesAndDefault() throws {
        let rows = try Self.referenceRows()
        let declared = Self.declared
        let missing = Set(declared.keys).subtracting(rows.keys).sorted()
        let extra = Set(rows.keys).subtracting(declared.keys).sorted()
        #expect(missing.isEmpty, "missing from docs/reference/config.md's table: \(missing)")
        #expect(extra.isEmpty, "in docs/reference/config.md's table but not a field: \(extra)")
        for (field, values) in declared where rows[field] != nil {
            #expect(rows[field] == values, "docs/reference/config.md: \(field) says '\(rows[field] ?? "")', the declaration '\(values)'")
        }
    }

    @Test func manPageHasAnEntryForEveryField() throws {
        let page = try String(contentsOf: Self.manPage, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
        for field in Self.declared.keys {
            #expect(page.contains(".TP\n\\fB\(field)\\fR\n"), "docs/man/videowm-config.5 has no entry for \(field)")
        }
    }

    @Test func helpListsEveryFieldAndSubfield() {
        let reference = WatermarkConfig.fieldReference
        for field in LayerFields.all {
            #expect(reference.contains("\n  \(field.key) "), "\(field.key)")
            for sub in field.subfields { #expect(reference.contains("\n    .\(sub.key) "), "\(field.key).\(sub.key)") }
        }
    }

    /// Every declared field is accepted on a layer of each kind it applies to, and refused,
    /// naming its path, on the other.
    @Test func kindsAreEnforcedFromTheTable() throws {
        for field in LayerFields.all where field.kinds.count == 1 && !["text", "image", "imageUrl"].contains(field.key) {
            let other = field.kinds.contains(.text) ? #""image": "logo.png""# : #""text": "hi""#
            let json = #"{ "watermarks": [ { \#(other), "\#(field.key)": 1 } ] }"#
            let error = configError(json)
            #expect(error?.path == "watermarks[0].\(field.key)" && error?.problem.hasPrefix("applies to") == true, "\(json): \(String(describing: error))")
        }
    }
}
