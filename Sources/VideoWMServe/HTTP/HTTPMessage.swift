import ServeCache

/// One request as the HTTP library parsed it: the method, the request target exactly as sent
/// (not percent-decoded, so `%2F` stays visible to the router), the query's arguments and the
/// header fields (names lower-cased; the first of repeated fields).
public struct HTTPRequest: Sendable {
    public var method: String
    public var path: String
    public var query: [String: String]
    public var headers: [String: String]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers.reduce(into: [:]) { $0[$1.key.lowercased()] = $1.value }
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
    public var isHead: Bool { method == "HEAD" }
}

/// A response: status, header fields (the library adds `Content-Length` and `Date`), and a
/// body held in memory or sent from a file (with sendfile, where the library can).
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case none
        case bytes([UInt8])
        /// `length` bytes of `file` from `offset`.
        case file(OpenFile, offset: UInt64, length: UInt64)

        public var length: UInt64 {
            switch self {
            case .none: 0
            case .bytes(let bytes): UInt64(bytes.count)
            case .file(_, _, let length): length
            }
        }
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .none) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A short plain-text response (errors, health).
    public static func text(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")] + headers, body: .bytes(Array((text + "\n").utf8)))
    }
}

/// What a handler answers: a response now, or one that another thread completes later (a
/// render): the connection then waits without holding a thread.
public enum HTTPReply: Sendable {
    case now(HTTPResponse)
    case later(DeferredResponse)
}

/// A response that will be ready later. `start` is called once the connection is parked; it
/// must call its argument exactly once, from any thread.
public struct DeferredResponse: Sendable {
    let start: @Sendable (_ deliver: @escaping @Sendable (HTTPResponse) -> Void) -> Void

    public init(_ start: @escaping @Sendable (_ deliver: @escaping @Sendable (HTTPResponse) -> Void) -> Void) {
        self.start = start
    }
}

/// How a request ended, for the access log and the metrics.
public struct HTTPExchangeRecord: Sendable {
    public var request: HTTPRequest
    public var status: Int
    /// Body bytes handed to the connection (none for HEAD); all of them when `completed`.
    public var bodyBytes: UInt64
    public var seconds: Double
    /// Whether the whole response went out (false: the client went away, a timeout, shutdown).
    public var completed: Bool
    public var client: String
}

/// The application behind the HTTP layer.
public protocol HTTPHandler: Sendable {
    /// Called on one of the library's polling threads: must not block (hand slow work to
    /// another thread and answer `.later`).
    func respond(to request: HTTPRequest) -> HTTPReply
    /// Called once per request that reached `respond`, when it ends.
    func finished(_ record: HTTPExchangeRecord)
}
