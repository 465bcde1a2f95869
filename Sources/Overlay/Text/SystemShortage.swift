#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the process can run out of: a library's failure is then the system's, not the font's,
/// the config's or the input's (fontconfig that cannot open its config file knows no fonts;
/// FreeType that cannot open or map a font calls it unreadable or of an unknown format).
public enum SystemShortage: Sendable, Equatable {
    case memory
    case fileDescriptors

    /// Whether `count` more files could be opened now: false when the process is at its
    /// descriptor limit (`ulimit -n`, EMFILE) or the system at its own (ENFILE).
    public static func descriptorsAvailable(_ count: Int = 1) -> Bool {
        var opened: [Int32] = []
        defer { for descriptor in opened { close(descriptor) } }
        for _ in 0..<count {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if descriptor < 0 { return !(errno == EMFILE || errno == ENFILE) }
            opened.append(descriptor)
        }
        return true
    }

    /// Whether `bytes` more of address space could be mapped now: false when the process is at
    /// its limit (`ulimit -v`), where libraries report a failed allocation as anything from
    /// "unknown file format" to "generic error in an external library". Maps nothing usable
    /// (no access, no reserve) and unmaps it at once.
    public static func addressSpaceAvailable(_ bytes: Int = 16 << 20) -> Bool {
        let mapped = mmap(nil, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if mapped == MAP_FAILED { return errno != ENOMEM }
        munmap(mapped, bytes)
        return true
    }
}
