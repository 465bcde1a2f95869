import Foundation
import Testing

/// Faults the sanitizer stage must catch: `scripts/test-sanitizers` runs the one for its
/// sanitizer first and refuses to go on unless that run fails with the sanitizer's report, so
/// a stage that would let a finding through (options lost, a report that does not fail the
/// run) is itself a failure. Skipped unless `VIDEOWM_SANITIZER_CANARY` names one.
@Suite("sanitizer canaries")
struct SanitizerCanaryTests {
    static let canary = ProcessInfo.processInfo.environment["VIDEOWM_SANITIZER_CANARY"]

    /// A write one byte past a heap allocation: AddressSanitizer's heap-buffer-overflow.
    @Test(.enabled(if: canary == "address"))
    func heapBufferOverflow() {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)
        defer { buffer.deallocate() }
        let index = Int(ProcessInfo.processInfo.processIdentifier) >= 0 ? 8 : 0  // not foldable
        buffer[index] = 1
    }

    private final class Counter: @unchecked Sendable { var value = 0 }

    /// Two threads incrementing one unguarded counter: ThreadSanitizer's "Swift access race".
    @Test(.enabled(if: canary == "thread"))
    func dataRace() {
        let counter = Counter()
        let threads = (0..<2).map { _ in Thread { for _ in 0..<10_000 { counter.value += 1 } } }
        threads.forEach { $0.start() }
        while threads.contains(where: { !$0.isFinished }) { usleep(1000) }
        #expect(counter.value > 0)
    }
}
