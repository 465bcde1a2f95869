import Testing
@testable import VideoWM

@Suite("work on a second thread")
struct SecondThreadWorkTests {
    struct Refused: Error, Equatable {}

    @Test("the work's value and its error come back through result(), once joined")
    func outcomes() throws {
        let values = (0..<8).map { n in SecondThreadWork { (0...n * 1000).reduce(0, +) } }
        #expect(try values.map { try $0.result() } == (0..<8).map { n in (0...n * 1000).reduce(0, +) })
        let failing = SecondThreadWork<Int> { throw Refused() }
        #expect(throws: Refused.self) { try failing.result() }
        // A second call returns the same outcome without joining again.
        #expect(try values[3].result() == (0...3000).reduce(0, +))
    }
}
