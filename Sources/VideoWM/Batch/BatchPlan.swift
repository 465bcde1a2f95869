import Foundation

/// One row of a batch, bound and checked: its variables and where its output goes.
public struct BatchRow: Sendable, Equatable {
    /// 1 for the first row after the CSV header; what reports and errors show.
    public let number: Int
    /// The CSV line the row starts on.
    public let line: Int
    /// The row's values by column, with the `--var` values every row shares.
    public let variables: [String: String]
    /// Where the row's output goes, parsed once (its kind and container).
    public let target: OutputTarget
    /// The file written last (a DASH presentation's MPD, else the playlist or file): done when it exists.
    public var output: String { target.dashManifest ?? target.path }

    /// 0 for the first row: what `--shard I/N` divides.
    public var index: Int { number - 1 }
}

/// Every row of a batch, validated as a whole before anything is encoded, so a typo in
/// row 412 stops the batch before it has spent an hour on rows 1–411.
///
/// Checked: every placeholder of the config and of the output template is a CSV column
/// (or a `--var`); every value a row needs is non-blank; every output path stays inside
/// the template's directory; no two rows resolve to the same output; no text a row fills in
/// is longer than a mark can be (`ConfigLimits`).
public struct BatchPlan: Sendable {
    /// Every row of the table, bound and checked, in file order.
    public let rows: [BatchRow]
    /// The template the rows' outputs were named from.
    public let outputTemplate: OutputPathTemplate
    /// The environment variable that names the key file when no `--key-file` is given.
    public static let keyFileVariable = "VIDEOWM_KEY_FILE"

    /// - Parameters:
    ///   - config: the marks every row draws, bound to each row's variables.
    ///   - table: the CSV, one row per output.
    ///   - outputTemplate: the outputs' names, with the CSV's columns as placeholders.
    ///   - templateTarget: the template's output parsed once (its kind and container, which every row's
    ///     output shares: a placeholder cannot name an extension).
    ///   - fixedVariables: `--var` values shared by every row; they may not repeat a column.
    ///   - warn: notices about the rows (a font fallback), each said once.
    public init(config: WatermarkConfig, table: CSVTable, outputTemplate: OutputPathTemplate, target templateTarget: OutputTarget,
                fixedVariables: [String: String] = [:], warn: WarningHandler) throws {
        self.outputTemplate = outputTemplate
        let file = table.file
        if let clash = fixedVariables.keys.sorted().first(where: table.columns.contains) {
            throw RequestError(subject: "--var \(clash)=…", problem: "repeats a column of \(file); give it in one place only")
        }
        let known = Set(table.columns).union(fixedVariables.keys)
        let knownList = (table.columns + fixedVariables.keys.sorted()).joined(separator: ", ")
        for layer in config.layers {
            guard case .text(let text) = layer.content else { continue }
            for name in text.variableNames where !known.contains(name) {
                throw ConfigError(file: config.file, path: layer.path + ".text", problem: "unknown placeholder '{\(name)}': \(file) has no such column (columns: \(knownList))")
            }
        }
        for name in outputTemplate.variableNames where !known.contains(name) {
            throw RequestError(subject: "--output", problem: "unknown placeholder '{\(name)}' in '\(outputTemplate.source)': \(file) has no such column (columns: \(knownList))")
        }
        // A variant layer's renders are shared by every row: its text may not differ between rows.
        if let layer = config.variantLayer, case .text(let text) = layer.content,
           let name = text.variableNames.first(where: table.columns.contains) {
            throw ConfigError(file: config.file, path: layer.path + ".text", problem: "'{\(name)}' is a column of \(file), but a variant layer is the same for every row (its variants are rendered once and shared); give it with --var or write it out")
        }
        for layer in config.layers {
            for name in layer.unless.keys.sorted() where !known.contains(name) {
                warn("\(config.file): \(layer.path).unless.\(name): \(file) has no column '\(name)', so this layer is never left out")
            }
        }

        // Before the warning below: a variant layer without the key is refused outright.
        if config.variantLayer != nil && config.pathKey == nil { throw VariantCode.keyNeeded(config: config) }
        if config.pathKey == nil, let layer = config.layersWithRowDependentPaths(columns: table.columns).first {
            warn("\(config.file): \(layer.path): no key: each row's random path is seeded by its text alone, so anyone who knows "
                 + "a student's text can compute their path and forge a leak that names them; make a key with 'videowm keygen FILE' "
                 + "and give it with --key-file FILE (or \(Self.keyFileVariable))")
        }

        var rows: [BatchRow] = []
        var rowByOutput: [String: BatchRow] = [:]
        var rowByStudent: [String: BatchRow] = [:]
        for record in table.rows {
            let variables = fixedVariables.merging(record.values) { fixed, _ in fixed }
            for (name, neededBy) in Self.requiredVariables(config: config, template: outputTemplate, variables: variables)
            where variables[name, default: ""].allSatisfy(\.isWhitespace) {
                throw CSVError(file: file, line: record.line, row: record.number, problem: "'\(name)' is empty, but \(neededBy) needs it")
            }
            // A value that makes a mark's text too long stops the batch here, not when its row is reached.
            do {
                try config.checkTextLengths(variables: variables)
            } catch let error as ConfigError {
                throw CSVError(file: file, line: record.line, row: record.number, problem: error.description)
            }
            let output: String
            do {
                output = try outputTemplate.resolve(variables)
            } catch {
                throw CSVError(file: file, line: record.line, row: record.number, problem: error.description)
            }
            let target = templateTarget.relocated(to: output)
            let row = BatchRow(number: record.number, line: record.line, variables: variables, target: target)
            let key = OutputPathTemplate.path(of: OutputPathTemplate.normalizedComponents(of: output))
            if let earlier = rowByOutput[key] {
                throw CSVError(file: file, line: record.line, row: record.number, problem: "its output \(output) is also the output of row \(earlier.number) (line \(earlier.line)); the --output template must give each row its own file, e.g. with {id}")
            }
            rowByOutput[key] = row
            // Two rows with one student name would get one codeword: trace could not tell them apart.
            if let student = config.variantStudent(variables: variables) {
                if let earlier = rowByStudent[student] {
                    throw CSVError(file: file, line: record.line, row: record.number, problem: "its variant layer's student name is also row \(earlier.number)'s (line \(earlier.line)); each row needs its own (watermarks: variants.student)")
                }
                rowByStudent[student] = row
            }
            rows.append(row)
        }
        self.rows = rows
    }

    /// The rows `shard` takes, in file order.
    public func rows(in shard: BatchShard) -> [BatchRow] {
        rows.filter { shard.contains(rowIndex: $0.index) }
    }

    /// Each variable a row must give a value to, with what needs it: the output template,
    /// and the text of every layer that `unless` does not leave out for this row.
    static func requiredVariables(config: WatermarkConfig, template: OutputPathTemplate,
                                  variables: [String: String]) -> [(name: String, neededBy: String)] {
        var required = template.variableNames.map { (name: $0, neededBy: "--output") }
        for layer in config.layers where !layer.isExcluded(by: variables) {
            guard case .text(let text) = layer.content else { continue }
            required += text.variableNames.map { (name: $0, neededBy: "\(config.file): \(layer.path).text") }
        }
        return required
    }
}
