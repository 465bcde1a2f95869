import Foundation

/// The names a variant code is derived for (docs/design/variant-marks.md §2): the lecture and each
/// student, as the config's variant layer says. `batch`, `serve` and `trace` must all come to the
/// same texts for one student, or `trace` would score a codeword nobody was given.
extension WatermarkConfig {
    /// The lecture's name: the variant layer's `lecture`, else the input's file name (the last
    /// component of its path or URL, so a folder move does not change it). Nil without a variant layer.
    public func variantLecture(input: String) -> String? {
        guard let variants = variantLayer?.variants else { return nil }
        if let lecture = variants.lecture { return lecture }
        let withoutQuery = input.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return withoutQuery.split(separator: "/").last.map(String.init) ?? input
    }

    /// The student's name for a row with `variables` (its CSV values and the `--var`s): the
    /// variant layer's `student` rendered, else every variable as `name=value` lines in name
    /// order (values with `\` and line breaks escaped, so no two rows' lists read alike). Nil
    /// without a variant layer. `checkVariables` has made sure the template's names are given.
    public func variantStudent(variables: [String: String]) -> String? {
        guard let variants = variantLayer?.variants else { return nil }
        if let template = variants.student { return template.render(variables) }
        return variables.sorted { $0.key < $1.key }.map { name, raw in
            let value = raw.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\n", with: "\\n")
            return "\(name)=\(value)"
        }.joined(separator: "\n")
    }
}
