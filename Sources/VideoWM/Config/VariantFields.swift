import Overlay

/// The `variants` object of a variant layer (docs/design/variant-marks.md §2), declared apart from the
/// other fields in `LayerFields.all` only to keep that table's file readable.
extension LayerFields {
    static var variantsField: ConfigField<LayerTemplate> {
        .object("variants", \.variants, initial: LayerTemplate.VariantSpec(count: 0, periodSeconds: 0, lecture: nil, student: nil), fields: [
            ConfigField("count", summary: "q, how many variants: phases of the tile, a q-th of a row apart",
                        values: "2…\(LayerVariants.counts.upperBound); default 4", setDefault: { variants, _ in variants.count = 4 },
                        read: { json, variants, _ in variants.count = try wholeNumber(json, in: LayerVariants.counts) }),
            .number("seconds", \.periodSeconds, in: 1...30, default: PerKind(2), unit: " seconds",
                    "the period: one variant per period, each period a segment of an HLS output (--segment) or a file's GOPs"),
            ConfigField("lecture", summary: "the lecture's name in the key derivation: biases and codewords differ per lecture",
                        values: "a string; default the input's file name", setDefault: { variants, _ in variants.lecture = nil },
                        read: { json, variants, _ in variants.lecture = try nonEmptyString(json) }),
            ConfigField("student", summary: "names the student in the key derivation, from the row's variables (\"{email}\")",
                        values: "a text with placeholders; default every variable of the row, as name=value lines in name order",
                        setDefault: { variants, _ in variants.student = nil },
                        read: { json, variants, _ in variants.student = try studentTemplate(json) }),
        ], "a variant layer: the tiled mark in q variants, one per period, each student's copy showing the variants their key-derived code says; needs tile; see docs/design/variant-marks.md")
    }

    /// A variant layer is drawn once per variant for every student (each variant of each segment
    /// is rendered once per lecture), so it must cover the frame and be the same for every row.
    static func checkVariantLayer(_ layer: LayerTemplate, variants: JSONField, present: [String: JSONField]) throws {
        guard layer.tile != nil else {
            throw variants.fail("needs \"tile\": a variant layer covers the whole frame, and its variants are phases of the tile")
        }
        if present["unless"] != nil {
            throw variants.fail("cannot be combined with \"unless\": a variant layer is the same for every student")
        }
        if case .text(let template) = layer.content, !TextTokens.perFrame.isDisjoint(with: template.variableNames) {
            throw variants.fail("a variant layer is drawn once for every student: its text cannot change per frame ({timecode}, {pts})")
        }
    }

    private static func nonEmptyString(_ json: JSONField) throws -> String {
        let text = try json.string()
        guard !text.isEmpty else { throw json.fail("is empty") }
        return text
    }

    /// The `student` template: placeholders of the row's variables only, since `trace` must
    /// render it again to the same text (videowm's own tokens change from run to run).
    private static func studentTemplate(_ json: JSONField) throws -> TextTemplate {
        let template = try textTemplate(json)
        if let token = template.variableNames.first(where: TextTokens.all.contains) {
            throw json.fail("cannot use {\(token)}: the student must be named by the row's own variables, the same when trace derives their code")
        }
        return template
    }
}
