extension Array where Element == Float {
    /// The median of the values (0 for none; the middle two averaged for an even count): the robust level
    /// that alignment's and detection's thresholds start from.
    func median() -> Float {
        guard !isEmpty else { return 0 }
        let sorted = sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}
