import Foundation
import TestSupport
import Testing

/// Issue 40: a class pressing play together. The lab's lecture with a ladder (240p, the input's
/// packets, and 120p) and the e-mail shown from 0 s (0–1 s and 6–7 s of every 6 s: segments 0 and
/// 3 a student's own), so every student's first segment is rendered for them when they start.
/// Start-up times are printed, never asserted (a shared, noisy machine): bench job 16 measures them.
@Suite("serve: start-up", .serialized)
struct ServeStartupTests {
    static let config = #"""
    { "watermarks": [ { "text": "{email}", "size": 0.12, "opacity": 0.9, "anchor": "center",
                        "start": 0, "interval": 1000, "skip": 5000 } ] }
    """#

    static func lab(_ h: Harness) throws -> ServeLab {
        let lab = try ServeLab(h)
        _ = try h.write("library/intro/marks.json", Self.config)
        _ = try h.write("library/intro/lecture.json", #"{ "video": "lecture.mp4", "config": "marks.json", "segment": 2, "ladder": "240,120" }"#)
        return lab
    }

    @Test("16 students arriving 0.5 s apart against an empty cache: each one's first segment is their own file, decodes, shows their mark from the first frame and differs from a classmate's; start-up recorded")
    func aClassArrivingTogether() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try Self.lab(h)
        let server = try lab.startServer()
        let emails = (0..<16).map { "arrival\($0)@example.com" }
        let arrivals = try lab.arrivals(port: server.port, tokens: try lab.tokens(emails), stagger: 0.5, folder: h.path("arrivals"))
        #expect(arrivals.count == emails.count)
        // The first frame (0 s: the mark shows from there) of the lecture, unmarked.
        let clean = try h.rgbFrame(lab.lecture, at: 0, width: 320, height: 240)
        var firstFrames: [[UInt8]] = []
        for (n, arrival) in arrivals.enumerated() {
            let student = try #require(arrival.statuses.allSatisfy { $0 == 200 } ? arrival : nil, "student \(n): \(arrival.statuses)")
            // Their first segment is their own file: under /own/, in the rendition listed first (240p: no rung is 360 lines tall).
            #expect(student.firstSegment.contains("/own/") && student.firstSegment.contains("/240p/0.m4s"), "\(student.firstSegment)")
            let joined = h.path("arrivals/\(n)/joined.mp4")
            var bytes = try Data(contentsOf: URL(fileURLWithPath: h.path("arrivals/\(n)/init.mp4")))
            bytes.append(try Data(contentsOf: URL(fileURLWithPath: h.path("arrivals/\(n)/0.m4s"))))
            try bytes.write(to: URL(fileURLWithPath: joined))
            let decoded = try h.run("ffmpeg", ["-v", "error", "-xerror", "-i", joined, "-f", "null", "-"])
            #expect(decoded.status == 0, "student \(n): \(decoded.stderr)")
            #expect(try h.videoFrameCount(joined) == 60)
            let frame = try h.rgbFrame(joined, at: 0, width: 320, height: 240)
            // The e-mail across the centre: the first frame is not the lecture's.
            #expect(meanDifference(frame, clean, width: 320, x: 20..<300, y: 100..<140) > 10, "student \(n): a clean first frame")
            firstFrames.append(frame)
        }
        for n in 1..<firstFrames.count {
            #expect(meanDifference(firstFrames[n], firstFrames[n - 1], width: 320, x: 20..<300, y: 100..<140) > 0.5,
                    "students \(n - 1) and \(n) have the same first frame")
        }
        #expect(server.metric("videowm_render_start_total") >= 16)
        let startups = arrivals.map(\.startupSeconds).sorted()
        if !startups.isEmpty {
            print("serve start-up, 16 students 0.5 s apart (debug build): median \(startups[startups.count / 2]) s, "
                  + "p95 \(startups[min(startups.count - 1, Int((Double(startups.count - 1) * 0.95).rounded()))]) s, max \(startups.last ?? 0) s")
        }
        #expect(server.stop() == 0)
    }

    @Test("prepare: 204 with a valid token (GET or POST), 403 without; the student's first segment is made before anyone asks for it, and their request is a cache hit; POST elsewhere 405")
    func prepare() throws {
        let h = try Harness()
        defer { h.cleanUp() }
        let lab = try Self.lab(h)
        let server = try lab.startServer()
        let token = try #require(try lab.tokens(["early@example.com"]).first)
        #expect(try h.fetch(server.base + "/v1/intro/prepare").status == 403)
        #expect(try h.fetch(server.base + "/v1/intro/prepare?token=" + token + "x").status == 403)
        #expect(try h.fetch(server.base + "/v1/intro/master.m3u8?token=" + token, method: "POST").status == 405)
        let prepared = try h.fetch(server.base + "/v1/intro/prepare?token=" + token, method: "POST")
        #expect(prepared.status == 204 && prepared.body.isEmpty)
        let deadline = Date().addingTimeInterval(240)
        while server.metric("videowm_renders_total", labels: #"{kind="student"}"#) < 1 && Date() < deadline { Thread.sleep(forTimeInterval: 0.2) }
        #expect(server.metric("videowm_renders_total", labels: #"{kind="student"}"#) == 1, "no segment rendered for a prepared student")
        #expect(try h.fetch(server.base + "/v1/intro/prepare?token=" + token).status == 204)
        let master = try h.fetch(server.base + ServeLab.master(token))
        let media = try #require(String(decoding: master.body, as: UTF8.self).split(separator: "\n").first { !$0.hasPrefix("#") })
        let playlist = try h.fetch(server.base + media)
        let first = try #require(ServeLab.uris(in: String(decoding: playlist.body, as: UTF8.self)).dropFirst().first)
        #expect(first.contains("/own/"))
        let hits = server.metric("videowm_cache_hits_total")
        #expect(try h.fetch(server.base + first).status == 200)
        #expect(server.metric("videowm_cache_hits_total") == hits + 1)
        #expect(server.metric("videowm_renders_total", labels: #"{kind="student"}"#) == 1)
        #expect(server.stop() == 0)
    }
}

/// What one arriving student met: the status of each request (playlist, media playlist, init,
/// first segment), the first segment's URI, and the seconds from asking for the playlist to the
/// last byte of the first segment.
struct Arrival: Decodable {
    let statuses: [Int]
    let firstSegment: String
    let startupSeconds: Double
}

extension ServeLab {
    /// Students start `stagger` s apart (a token each), each on a kept-alive connection: the
    /// playback URL, the first variant's media playlist, its initialization segment and first
    /// segment (saved as `folder/N/init.mp4` and `folder/N/0.m4s`), as a player starts.
    func arrivals(port: Int, tokens: [String], stagger: Double, folder: String) throws -> [Arrival] {
        let plan = h.path("arrivals-\(UUID().uuidString.prefix(8)).json")
        try JSONSerialization.data(withJSONObject: ["tokens": tokens, "stagger": stagger]).write(to: URL(fileURLWithPath: plan))
        let script = """
        import http.client, json, os, sys, threading, time
        port, plan, folder = int(sys.argv[1]), json.load(open(sys.argv[2])), sys.argv[3]
        results = [None] * len(plan['tokens'])
        def student(index, token):
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=300)
            statuses = []
            def fetch(path):
                conn.request('GET', path)
                response = conn.getresponse()
                body = response.read()
                statuses.append(response.status)
                return body
            asked = time.monotonic()
            lines = fetch('/v1/intro/master.m3u8?token=' + token).decode().splitlines()
            media = [line for line in lines if line and not line.startswith('#')][0]
            lines = fetch(media).decode().splitlines()
            init = [line.split('"')[1] for line in lines if line.startswith('#EXT-X-MAP:')][0]
            first = [line for line in lines if line and not line.startswith('#')][0]
            os.makedirs(os.path.join(folder, str(index)), exist_ok=True)
            open(os.path.join(folder, str(index), 'init.mp4'), 'wb').write(fetch(init))
            open(os.path.join(folder, str(index), '0.m4s'), 'wb').write(fetch(first))
            results[index] = {'statuses': statuses, 'firstSegment': first.split('?')[0], 'startupSeconds': time.monotonic() - asked}
        threads = []
        for index, token in enumerate(plan['tokens']):
            thread = threading.Thread(target=student, args=(index, token))
            thread.start()
            threads.append(thread)
            time.sleep(plan['stagger'])
        for thread in threads:
            thread.join()
        print(json.dumps([r for r in results if r]))
        """
        let r = try h.run("/usr/bin/env", ["python3", "-c", script, String(port), plan, folder])
        guard r.status == 0 else { throw HarnessError.toolFailed(r.stderr) }
        return try JSONDecoder().decode([Arrival].self, from: Data(r.stdout.utf8))
    }
}
