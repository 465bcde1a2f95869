import Testing
import Animation

struct RandomSeedTests {
    // Expected values computed independently with Python:
    //   h = 0xcbf29ce484222325; for b in s.encode(): h = ((h ^ b) * 0x100000001b3) % 2**64
    @Test func matchesIndependentlyComputedFNV1a() {
        #expect(RandomSeed.from(text: "") == 0xcbf2_9ce4_8422_2325)
        #expect(RandomSeed.from(text: "a") == 0xaf63_dc4c_8601_ec8c)
        #expect(RandomSeed.from(text: "student@example.com") == 0xc6bc_c935_e07b_4eed)
        #expect(RandomSeed.from(text: "é") == 0x0ac2_1707_b718_1e01)
    }

    @Test func differentTextsGiveDifferentSeedsAndPaths() {
        let alice = RandomSeed.from(text: "alice@example.com")
        let bob = RandomSeed.from(text: "bob@example.com")
        #expect(alice == 0x6702_3fc4_a7ff_2a46)
        #expect(bob == 0x61c0_42a8_ff8b_4299)
        #expect(alice != bob)

        func path(_ seed: UInt64) -> [LayerState] {
            let timeline = LayerTimeline(xPercent: 0, yPercent: 0,
                                         motion: .random(durationMilliseconds: 2000, seed: seed, easeMilliseconds: 300))
            return (0..<60).map { timeline.state(at: milliseconds(Int64($0) * 500)) }
        }
        let alicePath = path(alice), bobPath = path(bob)
        #expect(alicePath != bobPath)
        // Not just different somewhere: different in nearly every slot.
        let sameSpots = zip(alicePath, bobPath).filter { $0 == $1 }.count
        #expect(sameSpots == 0)
    }
}
