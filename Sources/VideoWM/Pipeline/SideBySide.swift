import Foundation

/// Runs independent pieces of work on the machine's cores: items `lane`, `lane + lanes`, … on lane
/// `lane`'s thread, lane 0 being the caller's, so each lane takes its items in order. For work such
/// as one picture's encodes for several outputs, each output's encoder its own: outputs made side by
/// side give the bytes they give one after another.
///
/// Threads of our own, started per call (tens of microseconds beside the tens of milliseconds of a
/// picture's encodes): libdispatch's `concurrentPerform` on Linux woke its workers too late for work
/// this fine, and the calling thread did nearly all of it.
enum SideBySide {
    /// The cores the work is spread over.
    static let cores = max(ProcessInfo.processInfo.activeProcessorCount, 1)

    /// Runs `body` on every item; returns the items whose `body` threw, in item order. `body` must
    /// touch nothing another item's touches.
    static func run<Item>(_ items: [Item], _ body: @escaping (Item) throws -> Void) -> [(index: Int, error: Error)] {
        let lanes = max(min(items.count, cores), 1)
        let work = Lanes(items: items, lanes: lanes, body: body)
        let others = (1..<lanes).map { lane in SecondThreadWork { work.run(lane: lane) } }
        var failures = work.run(lane: 0)
        // Every lane is joined before the items are given back; a lane's failures are its value.
        for other in others { failures += (try? other.result()) ?? [] }
        return failures.sorted { $0.index < $1.index }
    }

    /// The items and the work, handed to the lanes' threads: each lane touches only its own items.
    private struct Lanes<Item>: @unchecked Sendable {
        let items: [Item]
        let lanes: Int
        let body: (Item) throws -> Void

        func run(lane: Int) -> [(index: Int, error: Error)] {
            var failures: [(index: Int, error: Error)] = []
            for index in stride(from: lane, to: items.count, by: lanes) {
                do {
                    try body(items[index])
                } catch {
                    failures.append((index, error))
                }
            }
            return failures
        }
    }
}
