import CMicroHTTPD
import Foundation
import ServeCache
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP/1.1 server: one libmicrohttpd daemon, owned (stopped in `deinit`).
///
/// Why libmicrohttpd rather than civetweb: its connections live in epoll loops on a few
/// polling threads, so a slow or idle client costs a socket, not a thread; a request waiting
/// for a render is *suspended* (no thread held) and resumed from the render's thread; file
/// bodies go out with sendfile (`MHD_create_response_from_fd_at_offset64`, a range being an
/// offset and a length); it caps a connection's memory (a larger header gets 431 and the
/// connection closed) and stops accepting while finishing what is in flight
/// (`MHD_quiesce_daemon`). civetweb serves ranges of files itself but runs one thread per
/// connection and has no way to park a request. Range headers, methods and routes are the
/// application's (`SegmentServer`); the library parses the HTTP.
public final class HTTPDaemon: @unchecked Sendable {
    public struct Settings: Sendable {
        /// Seconds a connection may stay silent (no byte either way) before it is closed.
        public var idleTimeoutSeconds: UInt32 = 30
        /// Seconds a connection may take to send a whole request header (slowloris).
        public var headerDeadlineSeconds: Double = 10
        /// Memory per connection, which bounds a request's header (a larger one is refused, 431).
        public var memoryPerConnection: Int = 64 * 1024
        /// Connections open at once (`--max-connections`); past it a new one is closed as soon as
        /// it is accepted. Lowered to what the process's descriptor limit allows (`DescriptorBudget`).
        public var connectionLimit: UInt32 = 4096
        public var pollingThreads: UInt32 = 2
        public init() {}
    }

    private let daemon: OpaquePointer
    private let core: DaemonCore
    private let coreReference: Unmanaged<DaemonCore>
    /// The port listened on (the one asked for, or the system's pick for port 0).
    public let port: Int
    private var stoppedAccepting = false
    /// Connections open at once at most: `Settings.connectionLimit`, or fewer when descriptors are short.
    public var connectionLimit: Int { core.limit }

    public init(listen address: ListenAddress, handler: any HTTPHandler, settings: Settings = Settings()) throws {
        let limit = DescriptorBudget.connections(asked: settings.connectionLimit)
        let core = DaemonCore(handler: handler, watchdog: ConnectionWatchdog(headerDeadline: settings.headerDeadlineSeconds), limit: Int(limit))
        let reference = Unmanaged.passRetained(core)
        var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_EPOLL.rawValue)
            | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
        if address.family == .ipv6 { flags |= UInt32(MHD_USE_IPv6.rawValue) }
        errno = 0
        let started = address.withSocketAddress { socketAddress in
            vwm_mhd_start(flags, socketAddress,
                          admitConnection, reference.toOpaque(),
                          accessHandler, reference.toOpaque(),
                          requestCompleted, reference.toOpaque(),
                          connectionNotified, reference.toOpaque(),
                          settings.idleTimeoutSeconds, settings.memoryPerConnection,
                          // The library's own limit, above ours, is never reached: at it, it would leave
                          // new connections waiting in the listen queue instead of closing them.
                          limit + 64, settings.pollingThreads)
        }
        guard let started else {
            let code = errno
            core.watchdog.stop()
            reference.release()
            throw ListenError(address: address, code: code)
        }
        daemon = started
        self.core = core
        coreReference = reference
        port = Int(vwm_mhd_bound_port(started))
    }

    /// Stops accepting connections (the listening socket is closed); requests in flight and
    /// connections already open carry on until `deinit`.
    public func stopAccepting() {
        guard !stoppedAccepting else { return }
        stoppedAccepting = true
        let socket = MHD_quiesce_daemon(daemon)
        if socket >= 0 { close(socket) }
    }

    /// Requests that reached the application and have not ended.
    public var requestsInFlight: Int { core.inFlight }
    /// Connections cut off for sending their header too slowly.
    public var slowHeaderCutOffs: Int { core.watchdog.cutOffConnections }
    /// Connections open now, and those closed at once for arriving past the limit (so far).
    public var openConnections: Int { core.connections.open }
    public var refusedConnections: Int { core.connections.refused }

    deinit {
        core.watchdog.stop()
        MHD_stop_daemon(daemon)
        coreReference.release()
    }
}

/// The daemon could not listen (address in use, not permitted, not an address of this machine).
public struct ListenError: Error, CustomStringConvertible {
    public let address: ListenAddress
    public let code: Int32
    public init(address: ListenAddress, code: Int32) {
        self.address = address
        self.code = code
    }
    public var description: String {
        let reason = code != 0 ? String(cString: strerror(code)) : "the HTTP library could not start"
        return "cannot listen on \(address): \(reason)"
    }
}

/// What the C callbacks reach through their context pointer.
final class DaemonCore: @unchecked Sendable {
    let handler: any HTTPHandler
    let watchdog: ConnectionWatchdog
    let limit: Int
    private let lock = NSLock()
    private var inFlightCount = 0
    private var openCount = 0
    private var refusedCount = 0

    init(handler: any HTTPHandler, watchdog: ConnectionWatchdog, limit: Int) {
        self.handler = handler
        self.watchdog = watchdog
        self.limit = limit
    }

    var connections: (open: Int, refused: Int) { lock.withLock { (openCount, refusedCount) } }
    /// Whether a connection just accepted may stay (false: it is closed at once, and counted).
    func admit() -> Bool {
        lock.withLock {
            guard openCount < limit else {
                refusedCount += 1
                return false
            }
            return true
        }
    }
    func opened() { lock.withLock { openCount += 1 } }
    func closed() { lock.withLock { openCount -= 1 } }

    var inFlight: Int { lock.withLock { inFlightCount } }
    func began() { lock.withLock { inFlightCount += 1 } }
    func ended() { lock.withLock { inFlightCount -= 1 } }
}

/// One request between its arrival and its end: what the completion callback needs, and the
/// response a render delivers while the connection is suspended.
final class RequestExchange: @unchecked Sendable {
    let request: HTTPRequest
    let started = ConnectionWatchdog.now()
    let client: String
    private let lock = NSLock()
    private var ready: HTTPResponse?
    var status = 0
    var bodyBytes: UInt64 = 0
    /// Whether the application has been asked (polling thread only).
    var dispatched = false

    init(request: HTTPRequest, client: String) {
        self.request = request
        self.client = client
    }

    func deliver(_ response: HTTPResponse) { lock.withLock { ready = response } }
    func takeResponse() -> HTTPResponse? {
        lock.withLock {
            defer { ready = nil }
            return ready
        }
    }
}

private func core(_ context: UnsafeMutableRawPointer?) -> DaemonCore {
    Unmanaged<DaemonCore>.fromOpaque(context!).takeUnretainedValue()
}

private let accessHandler: MHD_AccessHandlerCallback = { context, connection, url, method, _, _, uploadSize, requestContext in
    guard let connection, let url, let method, let requestContext else { return .NO }
    let core = core(context)
    guard let existing = requestContext.pointee else {
        // The first call, with the header only. Answering now would make libmicrohttpd close
        // the connection after the response (it cannot know the request has no body), so the
        // answer waits for the next call, which comes once the request is complete.
        let request = HTTPRequest(method: text(method), path: text(url),
                                  query: values(of: connection, kind: .GET_ARGUMENT_KIND),
                                  headers: values(of: connection, kind: .HEADER_KIND))
        let exchange = RequestExchange(request: request, client: clientAddress(of: connection))
        requestContext.pointee = Unmanaged.passRetained(exchange).toOpaque()
        core.began()
        if let socketContext = vwm_mhd_connection_context(connection) { core.watchdog.requestArrived(socketContext) }
        return .YES
    }
    let exchange = Unmanaged<RequestExchange>.fromOpaque(existing).takeUnretainedValue()
    if let uploadSize, uploadSize.pointee > 0 {
        uploadSize.pointee = 0  // a request body: no route reads one; dropped
        return .YES
    }
    if exchange.dispatched {
        // Resumed: the render's response is ready.
        guard let response = exchange.takeResponse() else { return .YES }
        return queue(response, for: exchange, on: connection)
    }
    exchange.dispatched = true
    switch core.handler.respond(to: exchange.request) {
    case .now(let response):
        return queue(response, for: exchange, on: connection)
    case .later(let deferred):
        MHD_suspend_connection(connection)
        let parked = ParkedConnection(connection)
        deferred.start { response in
            exchange.deliver(response)
            MHD_resume_connection(parked.connection)
        }
        return .YES
    }
}

/// A suspended connection handed to the thread that will resume it (libmicrohttpd allows
/// `MHD_resume_connection` from any thread).
private struct ParkedConnection: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}

private let requestCompleted: MHD_RequestCompletedCallback = { context, connection, requestContext, termination in
    guard let requestContext, let existing = requestContext.pointee else { return }
    requestContext.pointee = nil
    let exchange = Unmanaged<RequestExchange>.fromOpaque(existing).takeRetainedValue()
    let core = core(context)
    core.ended()
    if let connection, let socketContext = vwm_mhd_connection_context(connection) { core.watchdog.requestEnded(socketContext) }
    let completed = termination == .REQUEST_TERMINATED_COMPLETED_OK
    core.handler.finished(HTTPExchangeRecord(request: exchange.request, status: exchange.status,
                                             bodyBytes: completed ? exchange.bodyBytes : 0,
                                             seconds: ConnectionWatchdog.now() - exchange.started,
                                             completed: completed, client: exchange.client))
}

/// Past the connection limit a new connection is closed as soon as it is accepted, so the client
/// learns at once (the listen queue would leave it waiting) and the descriptors are kept for the
/// connections being served.
private let admitConnection: MHD_AcceptPolicyCallback = { context, _, _ in
    core(context).admit() ? .YES : .NO
}

private let connectionNotified: MHD_NotifyConnectionCallback = { context, connection, socketContext, event in
    guard let connection, let socketContext else { return }
    let core = core(context)
    if event == .CONNECTION_NOTIFY_STARTED {
        core.opened()
        // The connection's own address serves as its key: unique while it is open.
        let key = UnsafeMutableRawPointer(connection)
        socketContext.pointee = key
        core.watchdog.connectionOpened(key, socket: vwm_mhd_connection_socket(connection))
    } else if let key = socketContext.pointee {
        core.closed()
        core.watchdog.connectionClosed(key)
        socketContext.pointee = nil
    }
}

private func queue(_ response: HTTPResponse, for exchange: RequestExchange, on connection: OpaquePointer) -> MHD_Result {
    let made: OpaquePointer?
    switch response.body {
    case .none:
        made = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
    case .bytes(let bytes):
        made = bytes.withUnsafeBytes { MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY) }
    case .file(let file, let offset, let length):
        // The library closes the descriptor it is given; ours stays with `file`.
        let copy = dup(file.descriptor)
        made = copy >= 0 ? MHD_create_response_from_fd_at_offset64(length, copy, offset) : nil
        if made == nil && copy >= 0 { close(copy) }
    }
    guard let made else { return .NO }  // out of memory or descriptors: the library drops the connection
    defer { MHD_destroy_response(made) }
    for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
    exchange.status = response.status
    exchange.bodyBytes = exchange.request.isHead ? 0 : response.body.length
    return MHD_queue_response(connection, UInt32(response.status), made)
}

/// The header fields or query arguments of a request, keyed by name (the first of repeated ones).
private func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [String: String] {
    final class Collected { var values: [String: String] = [:] }
    let collected = Collected()
    withExtendedLifetime(collected) {
        _ = MHD_get_connection_values(connection, kind, { context, _, key, value in
            guard let context, let key else { return .YES }
            let box = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
            let name = text(key).lowercased()
            if box.values[name] == nil { box.values[name] = value.map(text) ?? "" }
            return .YES
        }, Unmanaged.passUnretained(collected).toOpaque())
    }
    return collected.values
}

private func clientAddress(of connection: OpaquePointer) -> String {
    var text = [CChar](repeating: 0, count: 64)
    vwm_mhd_client_address(connection, &text, socklen_t(text.count))
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A C string from the library as text (invalid UTF-8 repaired, which no route accepts anyway).
private func text(_ pointer: UnsafePointer<CChar>) -> String {
    String(decoding: UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)), as: UTF8.self)
}
