import Foundation
import Testing
@testable import VideoWMServe

/// The render pool and cache behind requests: collapsing (in one process and across two
/// servers on one cache folder), the bounded queue, failures, disconnects, render-ahead,
/// slow and oversized headers, the drain, eviction, and lectures appearing and breaking.
@Suite("serve: rendering, cache and operations", .serialized)
struct RenderPoolTests {
    func ownURIs(_ fixture: ServeFixture, token: String) throws -> [String] {
        let master = try fixture.get("/v1/intro/master.m3u8?token=\(token)")
        let media = try fixture.get(ServeFixture.uris(in: master.text)[0])
        return ServeFixture.uris(in: media.text).filter { $0.contains("/own/") }
    }

    /// Runs `body` on `count` threads of their own (GCD's pool would start blocked clients one by
    /// one, about a second apart); `wait()` on the result waits for all.
    func startThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> DispatchGroup {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread {
                body(index)
                group.leave()
            }.start()
        }
        return group
    }

    /// A student's playlist (preparing their presentation) does not queue behind other students'
    /// renders, and renders a request waits for go before renders ahead.
    @Test func preparationsGoFirstAndRendersAheadLast() throws {
        struct Stop: Error {}
        let pool = RenderPool<Int>(workers: 1, queueLimit: 8)
        defer { pool.shutDown(failingQueuedWith: Stop()) }
        let gate = DispatchSemaphore(value: 0)
        let order = Statuses()
        pool.submit(key: "busy", priority: .request, work: { gate.wait(); return 0 })
        for _ in 0..<2000 where pool.busyWorkers == 0 { usleep(1000) }
        let jobs: [(String, RenderPool<Int>.Priority)] = [("ahead", .ahead), ("render", .request), ("prepare", .preparation),
                                                     ("render 2", .request), ("prepare 2", .preparation)]
        for (key, priority) in jobs {
            pool.submit(key: key, priority: priority, work: { order.add(key); return 0 })
        }
        // Joining a queued job with a more urgent priority moves it up.
        pool.submit(key: "ahead", priority: .preparation, work: { order.add("joined"); return 0 })
        gate.signal()
        #expect(pool.waitUntilIdle(seconds: 10))
        #expect(order.all == ["prepare", "prepare 2", "ahead", "render", "render 2"])
    }

    /// `--warm`: every lecture's shared work is made before anyone asks (the variant group once),
    /// and a student who then plays renders nothing but their own segments: every shared file
    /// is a cache hit, with the bytes a request would have rendered.
    @Test func warmingMakesTheSharedFilesBeforeAnyRequest() throws {
        let indexer = TestIndexer()
        let fixture = try ServeFixture(indexer: indexer, warm: true)
        #expect(fixture.waitFor { fixture.logLines.all.filter { $0.contains("warmed: 18 shared files made, 0 already cached") }.count == 2 })
        let warmed = indexer.renderList
        #expect(warmed.count == 2 * (2 * 7 + 1))                                   // two lectures: 2 × 7 files and one group of 4
        #expect(warmed.filter { $0.hasSuffix("group") }.count == 2)
        let token = try fixture.tokens(["{'lecture': 'intro', 'vars': {'email': 'ada@example.com', 'variant': '2'}, 'exp': now + 600}"])[0]
        let master = try fixture.get("/v1/intro/master.m3u8?token=\(token)")
        for playlist in ServeFixture.uris(in: master.text) {
            let media = try fixture.get(playlist)
            for uri in ServeFixture.uris(in: media.text) where uri.contains("/shared/") {
                let file = try fixture.get(uri)
                #expect(file.status == 200)
                #expect(file.text.hasPrefix(uri.split(separator: "/").suffix(2).joined(separator: "/").split(separator: "?")[0] + " shared"))
            }
        }
        #expect(fixture.waitFor { fixture.server.metrics.renderCount(.student) == 4 })  // 1 and 3, in both renditions (asked for, or ahead)
        #expect(indexer.renderList.dropFirst(warmed.count).allSatisfy { $0.contains(" student ") })
        // A restart finds everything warmed in the cache: nothing is made again.
        let second = try fixture.start(warm: true)
        defer { second.drain(seconds: 1) }
        #expect(fixture.waitFor { fixture.logLines.all.filter { $0.contains("warmed: 0 shared files made, 18 already cached") }.count == 2 })
    }

    @Test func concurrentRequestsAcrossTwoServersOnOneCacheRenderOnce() throws {
        let indexer = TestIndexer(gated: true)
        let fixture = try ServeFixture(indexer: indexer)
        let second = try fixture.start()
        defer { second.drain(seconds: 1) }
        defer { indexer.gate?.openForever() }
        let token = try fixture.token(marked: "4")
        // The media playlist has the first server render v0/4.m4s ahead, held at the gate.
        let uri = try ownURIs(fixture, token: token)[0]
        #expect(fixture.waitFor { indexer.gate?.arrived == 1 })
        let statuses = Statuses()
        let ports = [fixture.server.port, second.port]
        let clients = startThreads(8) { index in
            let output = try? ServeFixture.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(ports[index % 2])" + uri])
            statuses.add(output ?? "")
        }
        // All 8 wait at once (4 on the render, 4 in the other process on its file lock) before it may finish.
        #expect(fixture.waitFor { fixture.server.requestsWaitingForFiles + second.requestsWaitingForFiles == 8 })
        indexer.gate?.openForever()
        clients.wait()
        #expect(statuses.all == Array(repeating: "200", count: 8))
        #expect(indexer.renderList.filter { $0.hasPrefix("v0/4.m4s") }.count == 1)
        #expect(fixture.server.metrics.renderCount(.student) + second.metrics.renderCount(.student) == 1)
    }

    @Test func aSegmentsVariantsAreRenderedOnceWhicheverIsAskedForAcrossTwoServers() throws {
        let indexer = TestIndexer(gated: true)
        let fixture = try ServeFixture(indexer: indexer)
        let second = try fixture.start()
        defer { second.drain(seconds: 1) }
        defer { indexer.gate?.openForever() }
        // No own segments (nothing rendered ahead); Ada lists variant 0 of the group, Bob variant 2.
        let tokens = try fixture.tokens(["{'lecture': 'intro', 'vars': {'email': 'ada@example.com', 'marked': '', 'variant': '0'}, 'exp': now + 600}",
                                         "{'lecture': 'intro', 'vars': {'email': 'bob@example.com', 'marked': '', 'variant': '2'}, 'exp': now + 600}"])
        let master = try fixture.get("/v1/intro/master.m3u8?token=\(tokens[0])")
        let revision = try #require(ServeFixture.uris(in: master.text).first?.split(separator: "/").dropFirst(2).first)
        let uri: @Sendable (Int, String) -> String = { variant, token in "/v1/intro/\(revision)/shared/v0/variant-5-\(variant).m4s?token=\(token)" }
        let statuses = Statuses()
        let ports = [fixture.server.port, second.port]
        let clients = startThreads(8) { index in
            let asked = index % 4 < 2 ? uri(0, tokens[0]) : uri(2, tokens[1])
            let output = try? ServeFixture.run("/usr/bin/curl", ["-s", "-w", " %{http_code}", "http://127.0.0.1:\(ports[index % 2])" + asked])
            statuses.add(output ?? "")
        }
        // All 8 wait at once (4 on one job, 4 in the other process on the group's lock) before the group may finish:
        // one busy worker in each process, whichever of the group's files its requests asked for.
        #expect(fixture.waitFor { fixture.server.requestsWaitingForFiles + second.requestsWaitingForFiles == 8 })
        let busy = ports.map { port in
            let metrics = (try? ServeFixture.run("/usr/bin/curl", ["-s", "http://127.0.0.1:\(port)/metrics"])) ?? ""
            return metrics.split(separator: "\n").first { $0.hasPrefix("videowm_render_workers_busy ") }.map { String($0.dropFirst(28)) }
        }
        #expect(busy == ["1", "1"], "\(busy)")
        indexer.gate?.openForever()
        clients.wait()
        #expect(statuses.all.filter { $0 == "v0/variant-5-0.m4s shared\n 200" }.count == 4, "\(statuses.all)")
        #expect(statuses.all.filter { $0 == "v0/variant-5-2.m4s shared\n 200" }.count == 4, "\(statuses.all)")
        #expect(indexer.renderList == ["v0/segment-5 group"])
        #expect(fixture.server.metrics.renderCount(.group) + second.metrics.renderCount(.group) == 1)
        // Every variant is cached; a student gets only the one they list.
        #expect(try fixture.get(uri(1, tokens[0])).status == 404)
        #expect(try fixture.get(uri(2, tokens[0])).status == 404)
        #expect(try fixture.get(uri(2, tokens[1])).status == 200)
        #expect(FileManager.default.fileExists(atPath: fixture.cacheFolder + "/intro/\(revision)/shared/v0/variant-5-3.m4s"))
        #expect(indexer.renderList.count == 1)
    }

    final class Statuses: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String] = []
        func add(_ value: String) { lock.withLock { values.append(value) } }
        var all: [String] { lock.withLock { values } }
    }

    @Test func aFullQueueAnswers503WithRetryAfterAndNeverHangs() throws {
        let indexer = TestIndexer(segments: 12, gated: true)
        let fixture = try ServeFixture(indexer: indexer, workers: 1, queue: 1)
        defer { indexer.gate?.openForever() }
        let token = try fixture.token(marked: "11")
        let master = try fixture.get("/v1/intro/master.m3u8?token=\(token)")
        let media = try fixture.get(ServeFixture.uris(in: master.text)[0])
        // The one worker is held rendering v0/11.m4s ahead; the queue has room for one job.
        #expect(fixture.waitFor { indexer.gate?.arrived == 1 })
        let shared = ServeFixture.uris(in: media.text).filter { $0.contains("/shared/") && !$0.contains("init") }
        let statuses = Statuses()
        let base = fixture.base
        let clients = startThreads(5) { index in
            let output = try? ServeFixture.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "--max-time", "150", base + shared[index]])
            statuses.add(output ?? "")
        }
        // Four are refused while the worker is still held: answered at once, not after a render.
        // The server's count first, then the clients' (a failure then says which side was slow).
        #expect(fixture.waitFor(seconds: 60) { (try? fixture.get("/metrics").text.contains("videowm_render_rejected_total 4")) == true })
        #expect(fixture.waitFor(seconds: 60) { statuses.all.count == 4 }, "\(statuses.all)")
        #expect(indexer.gate?.arrived == 1)
        indexer.gate?.openForever()
        clients.wait()
        let all = statuses.all
        let busy = all.filter { $0.hasPrefix("HTTP/1.1 503") }
        #expect(busy.count == 4)
        #expect(all.filter { $0.hasPrefix("HTTP/1.1 200") }.count == 1)
        #expect(busy.allSatisfy { $0.lowercased().contains("retry-after: ") })
        #expect(try fixture.get("/metrics").text.contains("videowm_render_rejected_total 4"))
    }

    @Test func aFailedRenderAnswers500LogsOneLineAndCachesNothing() throws {
        let fixture = try ServeFixture(indexer: TestIndexer(failing: ["3.m4s"]))
        let token = try fixture.token()
        let uri = try ownURIs(fixture, token: token).first { $0.contains("/3.m4s") }!
        #expect(try fixture.get(uri).status == 500)
        let failures = fixture.logLines.all.filter { $0.contains("render failed") }
        #expect(failures.count == 1)
        #expect(failures.first?.contains("lecture intro, segment v0/3.m4s (student ") == true)
        let cached = (FileManager.default.enumerator(atPath: fixture.cacheFolder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix("3.m4s") }
        #expect(cached.isEmpty)
        #expect(try fixture.get(uri).status == 500)  // tried again, not a cached failure
        #expect(fixture.logLines.all.filter { $0.contains("render failed") }.count == 2)
        #expect(try fixture.get("/metrics").text.contains("videowm_http_requests_total{code=\"500\"} 2"))
    }

    @Test func aClientThatLeavesDoesNotWasteTheRender() throws {
        let indexer = TestIndexer(gated: true)
        let fixture = try ServeFixture(indexer: indexer)
        defer { indexer.gate?.openForever() }
        let token = try fixture.token(marked: "5")
        let uri = try ownURIs(fixture, token: token)[0]
        let gone = try fixture.get(uri, extra: ["--max-time", "0.5"])  // leaves while the render is held
        #expect(gone.status == 0)
        #expect(indexer.gate?.arrived == 1)
        indexer.gate?.openForever()
        #expect(fixture.waitFor { fixture.server.metrics.renderCount(.student) == 1 && fixture.serverIdle })
        let again = try fixture.get(uri)
        #expect(again.status == 200 && again.text.contains("student"))
        #expect(indexer.renderList.filter { $0.hasPrefix("v0/5.m4s") }.count == 1)
    }

    @Test func rendersTheNextOwnSegmentAhead() throws {
        let indexer = TestIndexer()
        let fixture = try ServeFixture(indexer: indexer)
        let token = try fixture.token(marked: "2,4")
        let master = try fixture.get("/v1/intro/master.m3u8?token=\(token)")
        _ = try fixture.get(ServeFixture.uris(in: master.text)[0])
        #expect(fixture.waitFor { indexer.renderList.contains { $0.hasPrefix("v0/2.m4s student") } })
        #expect(!indexer.renderList.contains { $0.hasPrefix("v0/4.m4s") })
        let media = try fixture.get(ServeFixture.uris(in: master.text)[0])
        _ = try fixture.get(ServeFixture.uris(in: media.text).first { $0.contains("/shared/v0/3.m4s") }!)
        #expect(fixture.waitFor { indexer.renderList.contains { $0.hasPrefix("v0/4.m4s student") } })
    }

    @Test func slowAndHugeHeadersAreCutOffWithoutDelayingOthers() throws {
        var http = HTTPDaemon.Settings()
        http.headerDeadlineSeconds = 1.5
        let fixture = try ServeFixture(http: http)
        let script = """
        import socket, sys, time, threading
        port = int(sys.argv[1])
        results = {}
        def slowloris():
            s = socket.create_connection(("127.0.0.1", port))
            start = time.time()
            try:
                for ch in b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nX-Slow: " + b"a" * 100:
                    s.send(bytes([ch]))
                    time.sleep(0.25)
                    if time.time() - start > 8: break
                data = s.recv(100)
                results["slow"] = "closed" if not data else data[:12].decode()
            except OSError:
                results["slow"] = "closed"
            results["slow_seconds"] = time.time() - start
        def huge():
            s = socket.create_connection(("127.0.0.1", port))
            try:
                s.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nX-Big: " + b"a" * (10 * 1024 * 1024) + b"\\r\\n\\r\\n")
                data = s.recv(100)
                results["huge"] = data[:12].decode() if data else "closed"
            except OSError:
                results["huge"] = "closed"
        threads = [threading.Thread(target=slowloris), threading.Thread(target=huge)]
        for t in threads: t.start()
        time.sleep(0.3)
        fast = []
        for _ in range(5):
            start = time.time()
            c = socket.create_connection(("127.0.0.1", port))
            c.sendall(b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n")
            reply = c.recv(100)
            fast.append((reply[:15].decode(), time.time() - start))
            c.close()
            time.sleep(0.2)
        for t in threads: t.join()
        print(results["slow"], round(results["slow_seconds"], 1), results["huge"], max(f[1] for f in fast), all(f[0] == "HTTP/1.1 200 OK" for f in fast))
        """
        let output = try ServeFixture.run("/usr/bin/env", ["python3", "-c", script, String(fixture.server.port)])
        let fields = output.split(separator: " ").map(String.init)
        #expect(fields.count == 5, "\(output)")
        guard fields.count == 5 else { return }
        #expect(fields[0] == "closed")
        #expect((Double(fields[1]) ?? 99) < 4)          // cut off near the 1.5-s deadline, not after the 25 s it would take
        #expect(fields[2] == "HTTP/1.1 431" || fields[2] == "closed")
        #expect((Double(fields[3]) ?? 99) < 0.5)        // the others were answered at once meanwhile
        #expect(fields[4] == "True\n" || fields[4] == "True")
        #expect(try fixture.get("/metrics").text.contains("videowm_slow_header_cutoffs_total 1"))
    }

    /// A kept-alive connection silent between requests for longer than the header deadline (a
    /// player with a full buffer, a client waiting out a 503's Retry-After) keeps being served:
    /// only a header that takes too long once it has begun is cut off, on a new connection or a
    /// kept-alive one.
    @Test func aSilentKeptAliveConnectionIsNotASlowHeader() throws {
        var http = HTTPDaemon.Settings()
        http.headerDeadlineSeconds = 1
        let fixture = try ServeFixture(http: http)
        let script = """
        import socket, sys, time
        port = int(sys.argv[1])
        def answer(s):
            data = b""
            while b"\\r\\n\\r\\n" not in data:
                chunk = s.recv(4096)
                if not chunk: return "closed"
                data += chunk
            head, _, body = data.partition(b"\\r\\n\\r\\n")
            length = int([l.split(b":")[1] for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length")][0])
            while len(body) < length: body += s.recv(4096)
            return head.split(b"\\r\\n")[0].decode()
        s = socket.create_connection(("127.0.0.1", port))
        request = b"GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n"
        s.sendall(request)
        first = answer(s)
        time.sleep(3)
        s.sendall(request)
        second = answer(s)
        time.sleep(2.5)
        start = time.time()
        try:
            for ch in request:
                s.send(bytes([ch]))
                time.sleep(0.25)
                if time.time() - start > 8: break
            third = answer(s)
        except OSError:
            third = "closed"
        print(first.replace(" ", "_"), second.replace(" ", "_"), third.replace(" ", "_"), round(time.time() - start, 1))
        """
        let output = try ServeFixture.run("/usr/bin/env", ["python3", "-c", script, String(fixture.server.port)])
        let fields = output.split(whereSeparator: \.isWhitespace).map(String.init)
        #expect(fields.count == 4, "\(output)")
        guard fields.count == 4 else { return }
        #expect(fields[0] == "HTTP/1.1_200_OK")
        #expect(fields[1] == "HTTP/1.1_200_OK")      // three silent seconds, three deadlines: still served
        #expect(fields[2] == "closed")               // the slow header after the silence is cut off
        #expect((Double(fields[3]) ?? 99) < 3)       // near the 1-s deadline from its first byte, not after its 5 s
        #expect(try fixture.get("/metrics").text.contains("videowm_slow_header_cutoffs_total 1"))
    }

    @Test func drainingFinishesRequestsInFlight() throws {
        let indexer = TestIndexer(gated: true)
        let fixture = try ServeFixture(indexer: indexer)
        defer { indexer.gate?.openForever() }
        let token = try fixture.token(marked: "5")
        let uri = try ownURIs(fixture, token: token)[0]
        let result = Statuses()
        let base = fixture.base
        let client = Thread {
            result.add((try? ServeFixture.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", base + uri])) ?? "")
        }
        client.start()
        // The request has arrived and waits for its render, which is held: it is in flight when the drain starts.
        #expect(fixture.waitFor { fixture.server.requestsWaitingForFiles == 1 && indexer.gate?.arrived == 1 })
        let drained = Statuses()
        let server = fixture.server!
        let drain = Thread { drained.add(String(server.drain(seconds: 60))) }
        drain.start()
        #expect(fixture.waitFor { (try? fixture.get("/healthz").status) == 0 })  // no longer listening…
        #expect(result.all.isEmpty && drained.all.isEmpty)                      // …while the render still holds both
        indexer.gate?.openForever()
        #expect(fixture.waitFor { !result.all.isEmpty && !drained.all.isEmpty })
        #expect(result.all == ["200 65536"])
        #expect(drained.all == ["true"])  // everything in flight finished within the bound
        let leftovers = (FileManager.default.enumerator(atPath: fixture.cacheFolder)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".partial") }
        #expect(leftovers.isEmpty)
    }
}

extension ServeFixture {
    var serverIdle: Bool { (try? get("/metrics").text.contains("videowm_render_workers_busy 0")) ?? false }
    var serverBusy: Bool { (try? get("/metrics").text.contains("videowm_render_workers_busy 1")) ?? false }
}
