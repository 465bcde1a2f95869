import Foundation
import Testing
@testable import VideoWM

/// The config's field table is the one source of what a layer takes: `videowm help config` is
/// made from it, and README's field table must list the same fields.
@Suite("config reference")
struct ConfigReferenceTests {
    static let readme = ArchitectureTests.root.appendingPathComponent("README.md")

    /// The backquoted names in the first column of README's config field table.
    static func readmeFields() throws -> Set<String> {
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = text.components(separatedBy: "## Config").dropFirst().first ?? ""
        var names = Set<String>()
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let firstColumn = line.split(separator: "|", omittingEmptySubsequences: true).first ?? ""
            for part in firstColumn.split(separator: "`") where !part.trimmingCharacters(in: .whitespaces).isEmpty && part != ", " {
                names.insert(String(part))
            }
        }
        return names
    }

    /// TPStreams' names are described in README's compatibility paragraph instead of the table.
    static let tpStreamsFields: Set<String> = ["textSize", "imageUrl", "width", "height"]

    @Test func readmeListsEveryFieldAndNoOther() throws {
        let declared = Set(LayerFields.all.map(\.key)).subtracting(Self.tpStreamsFields)
        let documented = try Self.readmeFields()
        #expect(declared.subtracting(documented).isEmpty, "missing from README's table: \(declared.subtracting(documented).sorted())")
        #expect(documented.subtracting(declared).isEmpty, "in README's table but not a field: \(documented.subtracting(declared).sorted())")
        let readme = try String(contentsOf: Self.readme, encoding: .utf8)
        for name in Self.tpStreamsFields { #expect(readme.contains("`\(name)`"), "\(name)") }
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
