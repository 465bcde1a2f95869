#if canImport(Glibc)
import Glibc
#endif

/// How many outputs one batch decode may feed under the process's open-file limit
/// (`ulimit -n`), so that `-j 8` under a low limit runs in smaller groups instead of failing
/// rows with "too many open files".
///
/// Measured (issue 19, a text layer in a named font and a logo): each output of a group
/// holds two descriptors on its temporary file (`AtomicOutput`'s lock, the muxer's writes);
/// fonts hold none (FreeType maps the file and closes it). For a moment more are needed:
/// the MP4 muxer opens the file again to move its index to the front, fontconfig opens its
/// config and caches while a row's marks are prepared, and every group after the first opens
/// the input again. `-j 8` needed 23 descriptors, `-j 1` 9.
enum DescriptorBudget {
    static let perOutput = 2
    /// Kept free for the files opened for a moment (above).
    static let headroom = 4

    /// The outputs per decode to use instead of `requested`, when the descriptors left under
    /// the limit (after those open now) cannot hold that many; nil when they can.
    static func lowered(_ requested: Int) -> (outputs: Int, limit: Int)? {
        var limit = rlimit()
        // Above 65536 (or unlimited) no batch comes near it, and counting would take long.
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < 1 << 16 else { return nil }
        let ceiling = Int(limit.rlim_cur)
        let open = (0..<Int32(ceiling)).count { fcntl($0, F_GETFD) != -1 }
        let fits = max(1, (ceiling - open - headroom) / perOutput)
        return fits < requested ? (fits, ceiling) : nil
    }
}
