import Foundation

/// One student's rows, lent to one thread at a time: a row is not thread-safe, and a request
/// and a render ahead may run together. A row is taken from the idle ones or made, and kept
/// idle afterwards, at most `idleLimit` of them (a student rarely needs more than two at once).
final class RowLending<Row>: @unchecked Sendable {
    private let lock = NSLock()
    private var idle: [Row]
    private let make: () throws -> Row
    static var idleLimit: Int { 2 }

    /// - Parameters:
    ///   - first: a row already made (the one that decided the student's segments), kept idle.
    ///   - make: makes another when every row is lent.
    init(first: Row, make: @escaping () throws -> Row) {
        idle = [first]
        self.make = make
    }

    func with<T>(_ body: (Row) throws -> T) throws -> T {
        let lent = try lock.withLock({ idle.popLast() }) ?? make()
        defer { lock.withLock { if idle.count < Self.idleLimit { idle.append(lent) } } }
        return try body(lent)
    }
}
