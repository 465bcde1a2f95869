import CFriBidi

/// The Unicode Bidirectional Algorithm's resolved embedding levels for one paragraph (FriBidi).
///
/// Even levels run left to right, odd ones right to left. The paragraph's own direction comes
/// from its first strong character (rules P2–P3), so "محمد — ada@example.com" is a right-to-left
/// paragraph in which the e-mail is a left-to-right island at level 2.
struct BidiParagraph: Equatable {
    /// One level per scalar of the paragraph.
    var levels: [UInt8]
    /// 0 for a left-to-right paragraph, 1 for a right-to-left one.
    var baseLevel: UInt8

    var isRightToLeft: Bool { baseLevel & 1 == 1 }

    init(_ scalars: [Unicode.Scalar]) {
        guard !scalars.isEmpty else {
            levels = []
            baseLevel = 0
            return
        }
        // Text without a right-to-left character or bidi control is all level 0: skip FriBidi.
        if !scalars.contains(where: BidiParagraph.mayNeedReordering) {
            levels = [UInt8](repeating: 0, count: scalars.count)
            baseLevel = 0
            return
        }
        let characters = scalars.map { FriBidiChar($0.value) }
        let count = FriBidiStrIndex(characters.count)
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: characters.count)
        var brackets = [FriBidiBracketType](repeating: 0, count: characters.count)
        var resolved = [FriBidiLevel](repeating: 0, count: characters.count)
        var direction = vwm_fribidi_par_on()
        fribidi_get_bidi_types(characters, count, &types)
        fribidi_get_bracket_types(characters, count, types, &brackets)
        // The maximum level plus one, or 0 on failure (only when FriBidi cannot allocate).
        let result = fribidi_get_par_embedding_levels_ex(types, brackets, count, &direction, &resolved)
        if result == 0 {
            levels = [UInt8](repeating: 0, count: characters.count)
            baseLevel = 0
            return
        }
        levels = resolved.map { UInt8(bitPattern: $0) }
        baseLevel = direction == vwm_fribidi_par_rtl() ? 1 : 0
    }

    /// Right-to-left letters (Hebrew, Arabic, Syriac, Thaana, N'Ko…, and their presentation
    /// forms) and the explicit bidi controls; anything else resolves to level 0 in a paragraph
    /// that has none of them.
    private static func mayNeedReordering(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: return true
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}

/// Rule L2 of the bidi algorithm on runs: from the highest level down to the lowest odd one,
/// every maximal sequence of runs at that level or above is reversed. Returns the runs'
/// indices in visual order (left to right); within a right-to-left run the shaper already
/// emits glyphs left to right.
func visualOrder(ofRunLevels levels: [UInt8]) -> [Int] {
    var order = Array(levels.indices)
    guard let highest = levels.max() else { return order }
    let lowestOdd = levels.filter { $0 & 1 == 1 }.min() ?? (highest + 1)
    var level = highest
    while level >= lowestOdd && level > 0 {
        var start = 0
        while start < order.count {
            guard levels[order[start]] >= level else { start += 1; continue }
            var end = start
            while end < order.count && levels[order[end]] >= level { end += 1 }
            order[start..<end].reverse()
            start = end
        }
        level -= 1
    }
    return order
}
