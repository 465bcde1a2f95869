internal import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// An owned read-only `AVIOContext` on an http(s) URL, opened with only the network
/// protocols allowed, with connect and read time limits, and with a total deadline: a
/// server that sends one byte now and then makes every single read succeed, so only a
/// limit on the whole fetch can end it.
package final class NetworkInput {
    let context: UnsafeMutablePointer<AVIOContext>
    let url: String
    /// The whole fetch (connecting included) must be over within this many seconds.
    let totalSeconds: Int
    /// The monotonic clock's reading (in seconds) past which the interrupt callback stops
    /// FFmpeg's blocking calls. FFmpeg keeps the pointer until the context is closed.
    private let deadline: UnsafeMutablePointer<Double>

    package init(url: String, timeoutSeconds: Int, totalSeconds: Int) throws {
        self.url = url
        self.totalSeconds = totalSeconds
        let deadline = UnsafeMutablePointer<Double>.allocate(capacity: 1)
        deadline.initialize(to: monotonicSeconds() + Double(totalSeconds))
        var options: OpaquePointer?
        let microseconds = String(min(timeoutSeconds, totalSeconds) * 1_000_000)
        av_dict_set(&options, "protocol_whitelist", "http,https,tcp,tls,crypto", 0)
        av_dict_set(&options, "rw_timeout", microseconds, 0)
        av_dict_set(&options, "timeout", microseconds, 0)
        var interrupt = AVIOInterruptCB(callback: { opaque in
            guard !Interruption.isRequested else { return 1 }
            // `opaque` is the deadline passed below.
            guard let opaque else { return 0 }
            return monotonicSeconds() > opaque.load(as: Double.self) ? 1 : 0
        }, opaque: UnsafeMutableRawPointer(deadline))
        var opened: UnsafeMutablePointer<AVIOContext>?
        let code = avio_open2(&opened, url, AVIO_FLAG_READ, &interrupt, &options)
        av_dict_free(&options)
        guard code >= 0, let opened else {
            deadline.deallocate()
            if code >= 0 { throw ResourceError.memory("opening \(url)") }
            try Self.checkFetch(code, url: url, totalSeconds: totalSeconds, operation: "cannot fetch")
            preconditionFailure("check returned for a negative code")
        }
        self.deadline = deadline
        context = opened
    }

    deinit {
        var c: UnsafeMutablePointer<AVIOContext>? = context
        avio_closep(&c)
        deadline.deallocate()
    }

    /// Reads what has arrived into `buffer` (up to its size); 0 at the end of the body.
    package func read(into buffer: inout [UInt8]) throws -> Int {
        let count = buffer.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32($0.count)) }
        if count == AVErrorCode.endOfFile || count == 0 { return 0 }
        try Self.checkFetch(count, url: url, totalSeconds: totalSeconds, operation: "download failed")
        return Int(count)
    }

    /// A stop by the interrupt callback is the user's signal (130) or, without one, the
    /// total deadline, which is the URL's fault (66) and says so.
    private static func checkFetch(_ code: Int32, url: String, totalSeconds: Int, operation: String) throws {
        guard code < 0 else { return }
        if code == AVErrorCode.exit && !Interruption.isRequested {
            throw InputError(file: url, problem: .fetchFailed(operation: "not fetched within \(totalSeconds) s (VIDEOWM_FETCH_TIMEOUT)"),
                             code: ErrorCode(value: code, message: "timed out"))
        }
        try check(code) { InputError(file: url, problem: .fetchFailed(operation: operation), code: $0) }
    }
}

/// Seconds on the monotonic clock (unaffected by changes to the wall clock).
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
