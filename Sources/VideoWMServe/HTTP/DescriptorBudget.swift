#if canImport(Glibc)
import Glibc
#endif

/// How many connections fit in the process's file descriptors: each holds one, and one more
/// while a file of the cache is sent. A server that runs out accepts nothing more (libmicrohttpd
/// stops calling accept, and new clients wait in the listen queue), so the connection limit is
/// kept below what the descriptors allow, and the soft limit is raised towards the hard one
/// first, as far as the connections asked for need (as nginx's `worker_rlimit_nofile` does).
enum DescriptorBudget {
    /// Descriptors kept for everything but connections: render workers' inputs, cache files and
    /// locks, the log, the polling threads' epoll and wake-up descriptors.
    static let reserve: UInt64 = 256

    static func connections(asked: UInt32) -> UInt32 {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return asked }
        let needed = rlim_t(asked) * 2 + rlim_t(reserve)
        if limit.rlim_cur < needed && limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        guard limit.rlim_cur > rlim_t(reserve) + 2 else { return 1 }
        return UInt32(min(rlim_t(asked), (limit.rlim_cur - rlim_t(reserve)) / 2))
    }
}
