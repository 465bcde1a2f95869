import Testing

/// The architecture tests' lexer: what a file names is its code's, never its comments' or its strings'.
@Suite("Swift source lexer")
struct SwiftSourceTests {
    @Test func commentsNameNothing() {
        let source = SwiftSource("""
            /// A doc comment naming Alpha.
            // A line comment naming Beta. /* not a block */
            /* A block naming Gamma /* nested, naming Delta */ still Epsilon */ let kept = Zeta()
            let url = "http://example.com" // after a string: Eta
            """)
        #expect(Set(source.typeNames) == ["let", "kept", "Zeta", "url"])
        #expect(source.codeText.split(separator: "\n", omittingEmptySubsequences: false).count == 4)
        #expect(source.codeText.contains("let kept = Zeta()") && source.codeText.contains("\"http://example.com\""))
        #expect(!source.codeText.contains("Alpha") && !source.codeText.contains("Epsilon") && !source.codeText.contains("Eta"))
    }

    @Test func stringsNameNothingButTheirInterpolationsDo() {
        let source = SwiftSource(##"""
            precondition(ready, "a Compositor must be prepared")
            let a = "\(Alpha.make("Beta \(Gamma())")) Delta"
            let b = """
                Epsilon "quoted" \(Zeta)
                """
            let c = #"raw "Eta" \(Theta) \#(Iota)"#
            let d = #/Kappa/#
            """##)
        #expect(Set(source.typeNames) == ["precondition", "ready", "let", "a", "Alpha", "Gamma", "b", "Zeta", "c", "Iota", "d"])
        let strings = source.tokens.filter { $0.kind == .string }.map(\.text)
        #expect(strings.first == "a Compositor must be prepared")
        #expect(strings.contains(#"raw "Eta" \(Theta) "#))
        #expect(source.tokens.last?.line == 7)
    }

    @Test func membersAreNotTypes() {
        let source = SwiftSource("let x = Alpha.beta?.gamma ?? .delta\nlet r = 0...Epsilon.max\nfoo\n    .Zeta()")
        #expect(Set(source.typeNames) == ["let", "x", "Alpha", "r", "Epsilon", "foo"])
    }

    @Test func topLevelTypesAndImports() {
        let source = SwiftSource("""
            internal import CFFmpeg
            @preconcurrency import Glibc
            import Overlay
            public final class Outer { struct Inner {}; class func make() {} }
            enum Kind { case a }
            typealias Alias = Outer
            extension Outer { enum Nested {} }
            """)
        #expect(source.topLevelTypes == ["Outer", "Kind", "Alias"])
        #expect(source.imports.map { "\($0.access) \($0.module)" } == ["internal CFFmpeg", " Glibc", " Overlay"])
    }
}
