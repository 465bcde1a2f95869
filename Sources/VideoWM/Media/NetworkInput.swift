import CFFmpeg

/// An owned read-only `AVIOContext` on an http(s) URL, opened with only the network
/// protocols allowed and with connect and read time limits.
final class NetworkInput {
    let context: UnsafeMutablePointer<AVIOContext>
    let url: String

    init(url: String, timeoutSeconds: Int) throws {
        self.url = url
        var options: OpaquePointer?
        let microseconds = String(timeoutSeconds * 1_000_000)
        av_dict_set(&options, "protocol_whitelist", "http,https,tcp,tls,crypto", 0)
        av_dict_set(&options, "rw_timeout", microseconds, 0)
        av_dict_set(&options, "timeout", microseconds, 0)
        var interrupt = AVIOInterruptCB(callback: { _ in Interruption.isRequested ? 1 : 0 }, opaque: nil)
        var opened: UnsafeMutablePointer<AVIOContext>?
        let code = avio_open2(&opened, url, AVIO_FLAG_READ, &interrupt, &options)
        av_dict_free(&options)
        try check(code) { InputError(file: url, problem: .fetchFailed(operation: "cannot fetch"), code: $0) }
        guard let opened else { throw ResourceError.memory("opening \(url)") }
        context = opened
    }

    deinit {
        var c: UnsafeMutablePointer<AVIOContext>? = context
        avio_closep(&c)
    }

    /// Reads what has arrived into `buffer` (up to its size); 0 at the end of the body.
    func read(into buffer: inout [UInt8]) throws -> Int {
        let count = buffer.withUnsafeMutableBufferPointer { avio_read(context, $0.baseAddress, Int32($0.count)) }
        if count == AVErrorCode.endOfFile || count == 0 { return 0 }
        try check(count) { InputError(file: url, problem: .fetchFailed(operation: "download failed"), code: $0) }
        return Int(count)
    }
}
