import Foundation
import ServeAccess
import VideoWM
import VideoWMServe

/// `videowm serve LIBRARY --token-key-file FILE [--revocations FILE] [--token-leeway SECONDS] [--listen HOST:PORT] [--key-file FILE] [--cache DIR] [--cache-size SIZE] [--workers N] [--queue N] [--max-connections N] [--max-wait SECONDS] [--warm]`
struct ServeCommand: ToolCommand {
    static let name = "serve"
    var library = ""
    var listen = ListenAddress("127.0.0.1:8080")!
    var tokenKeyFile: String?
    var revocations: String?
    var tokenLeeway = Int(TokenVerifier.defaultLeewaySeconds)
    var maxConnections = 4096
    var maxWait = Int(OriginServer.defaultMaxWaitSeconds)
    var markKeyFile: String?
    var cache: String?
    var cacheBytes: UInt64 = 10 << 30
    var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    var queue = 32
    var player: String?
    var drainSeconds = 10.0
    var warm = false

    static var optionGroups: [OptionGroup<Self>] {
        [OptionGroup("Options", [
            .parsed("--listen", placeholder: "HOST:PORT", help: "address to listen on (default 127.0.0.1:8080: this machine only; 0.0.0.0:8080 for every interface)",
                    example: "127.0.0.1:9090", parse: Self.address) { $0.listen = $1 },
            .text("--token-key-file", placeholder: "FILE", help: "the keys the platform signs tokens with (HS256): the file's bytes (at least 32), or a JWK Set whose keys tokens name by kid; re-read on SIGHUP") { $0.tokenKeyFile = $1 },
            .text("--revocations", placeholder: "FILE", help: "revoked tokens, a line each: 'jti ID' or 'sub ID'; re-read when it changes and on SIGHUP (a revoked token is refused within 5 s)") { $0.revocations = $1 },
            .integer("--token-leeway", placeholder: "SECONDS", range: 0...300, help: "seconds by which a token's exp may have passed or its nbf not yet come, 0…300 (default 60: clocks that disagree)") { $0.tokenLeeway = $1 },
            .text("--key-file", placeholder: "FILE", help: "the platform's key for keyed mark paths and variant layers' codes, as batch's --key-file (default: the file \(MarkOptions.keyFileVariable) names)") { $0.markKeyFile = $1 },
            .text("--cache", placeholder: "DIR", help: "folder of rendered files, shareable by several serve processes (default LIBRARY/.videowm-cache)") { $0.cache = $1 },
            .parsed("--cache-size", placeholder: "SIZE", help: "bound on the cache, least recently used files removed past it (default 10G; K, M, G, T)",
                    example: "500M", parse: Self.size) { $0.cacheBytes = $1 },
            .integer("--workers", range: 1...256, help: "renders at once, 1…256 (default: the number of cores)") { $0.workers = $1 },
            .integer("--queue", range: 0...100_000, help: "renders that may wait for a worker, 0…100000 (default 32); past it a request gets 503 with Retry-After") { $0.queue = $1 },
            .integer("--max-wait", placeholder: "SECONDS", range: 1...600, help: "longest a request waits for its render, 1…600 (default 20); past it 503 with Retry-After while the render carries on") { $0.maxWait = $1 },
            .integer("--max-connections", range: 16...1_000_000, help: "connections open at once, 16…1000000 (default 4096, fewer when the process may not open that many files); past it a new connection is closed at once") { $0.maxConnections = $1 },
            .text("--player", placeholder: "DIR", help: "a folder served under /player/ (the page scripts/demo makes)") { $0.player = $1 },
            .seconds("--drain", help: "on SIGTERM or SIGINT, seconds to finish requests in flight before exiting (default 10)") { $0.drainSeconds = $1 },
            .flag("--warm", help: "make every lecture's shared files that cost an encode (a ladder's renditions, a variant layer's variants) as soon as the lecture appears, when no request is waiting") { $0.warm = true },
        ])]
    }

    static var files: FileArguments<Self> { .exactly(1, described: "one LIBRARY folder") { $0.library = $1[0] } }

    static let help = CommandHelp(
        usage: "videowm serve LIBRARY --token-key-file FILE [--revocations FILE] [--token-leeway SECONDS] [--listen HOST:PORT] [--key-file FILE] [--cache DIR] [--cache-size SIZE] [--workers N] [--queue N] [--max-connections N] [--max-wait SECONDS] [--warm]",
        discussion: """
        An HTTP origin for per-student HLS. LIBRARY holds one folder per lecture with a
        lecture.json: {"video", "config"} and optionally "segment", "preset", "crf",
        "ladder", "subtitles" (batch's options of those names), and "encryption":
        {"scheme": "aes-128", "keyFile": "lecture.key"} to serve every media segment
        AES-128 encrypted, the key (KID:KEY, chmod 600) answered at /v1/NAME/REV/key only to
        tokens for that lecture. A student's URL is
        http://HOST:PORT/v1/NAME/master.m3u8?token=JWT, the token signed by the platform with
        HS256 and the token key, with the claims lecture, vars, exp and optionally nbf. Every
        URL the playlist leads to carries the token. Shared segments are made once and sent
        from the cache; a student's marked segments are rendered on first request and cached.
        A student's playback URL (or GET or POST /v1/NAME/prepare?token=JWT, 204, which a
        platform sends when the lecture page opens) starts their first segment of the rendition
        players start with: the lowest rung at least 360 lines tall, listed first.
        The shared segments of a ladder's other renditions (and a variant layer's variants) are
        made on their first request, once for every student, or ahead of any request with
        --warm (at the lowest priority: requests always go first).
        A config with a variant layer needs --key-file: each student's playlist lists, segment by
        segment, the shared variant their codeword picks (a segment's variants are rendered
        together on first request; with "ladder" or "subtitles", per rendition, every rendition
        listing the same symbol), as batch --key-file writes it for the same variables.
        The token key file may be a JWK Set ({"keys": [{"kty": "oct", "kid": "2026-12",
        "k": "…"}]}): a token names its key in its header's kid. SIGHUP re-reads the keys, the
        revocations and the library without dropping a connection; a file that no longer reads
        keeps what is in force. A token whose jti or sub the revocations file lists is refused.
        A cache volume that fills up answers from memory; a damaged cached file is rendered
        again, never sent (docs/guide/serve-operations.md).
        /healthz and /metrics (Prometheus) are for operations; each request logs one line on
        stderr. SIGTERM or SIGINT stops accepting, finishes what is in flight (--drain) and
        exits 0.
        """)

    static func address(_ text: String, spelling: String, command: String) throws -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw UsageError("\(spelling) takes HOST:PORT with an IP address (127.0.0.1:8080, [::1]:8080), got '\(text)'", command: command)
        }
        return address
    }

    static func size(_ text: String, spelling: String, command: String) throws -> UInt64 {
        let units: [Character: UInt64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text)
        var unit: UInt64 = 1
        if let last = digits.last?.uppercased().first, let factor = units[last] {
            unit = factor
            digits = digits.dropLast()
        }
        guard let number = Double(digits), number.isFinite, number > 0, number * Double(unit) >= 1_048_576, number * Double(unit) < 0x1p62 else {
            throw UsageError("\(spelling) takes a size of at least 1M, such as 500M or 10G, got '\(text)'", command: command)
        }
        return UInt64(number * Double(unit))
    }

    mutating func validate() throws {
        guard tokenKeyFile != nil else { throw UsageError("--token-key-file FILE is required (the key tokens are signed with)", command: Self.name) }
    }

    func run(console: Console) throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: library, isDirectory: &isFolder), isFolder.boolValue else {
            throw InputError.missing(library)
        }
        // The token keys as the platform shares them: the file's bytes, 32 to 4096 (RFC 7518 §3.2:
        // at least 256 bits for HS256), or a JWK Set; owner-only as every key file.
        let tokenKeys = try TokenKeySet.read(fromFile: try tokenKeyFile.required("--token-key-file FILE", command: Self.name))
        var salt = Array("videowm \(ToolCommands.version)\u{0}".utf8)
        var markKey: SecretKey?
        // As batch: --key-file, else the file VIDEOWM_KEY_FILE names (the same key, the same marks).
        let environment = ProcessInfo.processInfo.environment[MarkOptions.keyFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let markKeyFile = markKeyFile ?? environment {
            // The marks' key changes every student's marked bytes: a code made with it goes into
            // each lecture's revision, so a new key never serves files made with the old one.
            let key = try SecretKey.read(fromFile: markKeyFile)
            salt += try HMACSHA256.authenticationCode(for: Array("videowm-serve revision".utf8), key: key)
            markKey = key
        }
        // With a marks' key, students' names in URLs are keyed by a key derived from it, so they
        // outlive every rotation of the token keys; without one, by the key that signed the token.
        let access = try AccessControl(keys: tokenKeys, leewaySeconds: Double(tokenLeeway), revocationsFile: revocations,
                                       studentNames: try markKey.map(StudentNames.init(derivedFrom:)))
        var settings = OriginServer.Settings(library: library, listen: listen, access: access,
                                             cacheFolder: cache ?? (library as NSString).appendingPathComponent(".videowm-cache"),
                                             cacheBytes: cacheBytes, workers: workers, queue: queue, playerFolder: player,
                                             revisionSalt: salt)
        settings.http = HTTPDaemon.Settings()
        settings.http.connectionLimit = UInt32(maxConnections)
        settings.maxWaitSeconds = Double(maxWait)
        settings.warm = warm
        // FFmpeg's and x264's own messages stay out of the server's log: a failed render is one line of ours.
        VideoWMLibrary.configureLogging(verbose: false)
        Interruption.drainOnTermination()
        Interruption.reloadOnHangup()
        let log = ServerLog()
        let server = try OriginServer(settings: settings, preparer: LecturePreparer(markKey: markKey, warn: { log.event($0) }), log: log)
        let shown = listen.family == .ipv6 ? "[\(listen.host)]" : listen.host
        if server.connectionLimit < maxConnections {
            log.event("--max-connections \(maxConnections) lowered to \(server.connectionLimit): the process may not open enough files (ulimit -n)")
        }
        log.event("listening on http://\(shown):\(server.port)/ (library \(library), \(workers) workers, queue \(queue), "
                  + "\(server.connectionLimit) connections, token keys \(access.keyIDs.joined(separator: ", "))\(warm ? ", warming shared files" : ""))")
        var reloadsSeen = Interruption.reloadRequests
        while !Interruption.isDrainRequested {
            usleep(100_000)
            let reloads = Interruption.reloadRequests
            if reloads != reloadsSeen {
                reloadsSeen = reloads
                log.event("SIGHUP: re-reading the token keys, the revocations and the library")
                server.reload()
            }
        }
        log.event("draining: finishing requests in flight (at most \(drainSeconds) s)")
        let finished = server.drain(seconds: drainSeconds)
        log.event(finished ? "stopped" : "stopped; requests still waiting were answered 503")
    }
}
