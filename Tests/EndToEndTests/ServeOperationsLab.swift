import Foundation
import TestSupport
import Testing

/// What the operations tests need beside the serve lab: JWK Sets written and tokens signed by
/// PyJWT as a platform would, a crowd of students played by Python's http.client (each with one
/// kept-alive connection, fetching every file of their playlist, timing every answer), and a
/// small tmpfs volume for the cache.
extension ServeLab {
    /// Writes a JWK Set of fresh random HS256 keys with these ids to `path`, owner-only, by
    /// rename (as a platform replaces the file), with PyJWT's `HMACAlgorithm.to_jwk`.
    func writeKeySet(_ kids: [String], to path: String) throws {
        let script = """
        import json, os, sys
        from jwt.algorithms import HMACAlgorithm
        keys = []
        for kid in sys.argv[2:]:
            jwk = json.loads(HMACAlgorithm.to_jwk(os.urandom(32)))
            jwk.update({"kid": kid, "alg": "HS256", "use": "sig"})
            keys.append(jwk)
        fd = os.open(sys.argv[1] + '.new', os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(fd, json.dumps({"keys": keys}, indent=1).encode())
        os.close(fd)
        os.rename(sys.argv[1] + '.new', sys.argv[1])
        """
        let r = try h.run("/usr/bin/env", ["python3", "-c", script, path] + kids)
        try #require(r.status == 0, "\(r.stderr)")
    }

    /// Tokens for `intro` signed by PyJWT with the key `kid` names in the JWK Set at `keyFile`
    /// (found with `PyJWKSet`), the kid in their header; `claims` are Python expressions added to
    /// `lecture` and `vars` (`now` is the time; default: valid 10 minutes).
    func jwkTokens(keyFile: String, _ specs: [(kid: String, email: String, claims: String)]) throws -> [String] {
        let lines = specs.map { spec in
            "('\(spec.kid)', {'lecture': 'intro', 'vars': {'email': '\(spec.email)'}, \(spec.claims.isEmpty ? "'exp': now + 600" : spec.claims)})"
        }
        let script = """
        import jwt, sys, time
        now = int(time.time())
        keys = jwt.PyJWKSet.from_json(open(sys.argv[1]).read())
        for kid, claims in [\(lines.joined(separator: ", "))]:
            print(jwt.encode(claims, keys[kid].key, algorithm='HS256', headers={'kid': kid}))
        """
        let r = try h.run("/usr/bin/env", ["python3", "-c", script, keyFile])
        try #require(r.status == 0, "PyJWT: \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    /// One answer a crowd's student saw.
    struct Answer: Decodable {
        let path: String
        let status: Int
        let seconds: Double
        let retryAfter: String?
        let file: String?
    }

    /// Every student (a token each) fetches their playlist and every file it names on one
    /// kept-alive connection, all at once; a 503 is asked again after its Retry-After (at most 1 s)
    /// up to `retries` times. Bodies of 200 answers are saved under `folder/STUDENT/` (`init.mp4`,
    /// `K.m4s`). The answers per student, in order.
    func crowd(port: Int, tokens: [String], folder: String, retries: Int) throws -> [[Answer]] {
        let plan = h.path("crowd-\(UUID().uuidString.prefix(8)).json")
        try JSONSerialization.data(withJSONObject: ["tokens": tokens, "retries": retries]).write(to: URL(fileURLWithPath: plan))
        let script = """
        import http.client, json, os, sys, threading, time
        port, plan, folder = int(sys.argv[1]), json.load(open(sys.argv[2])), sys.argv[3]
        results = [None] * len(plan['tokens'])
        def student(index, token):
            answers, conn = [], None
            def fetch(path, save=None):
                nonlocal conn
                for attempt in range(plan['retries'] + 1):
                    if conn is None:
                        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=120)
                    started = time.monotonic()
                    try:
                        conn.request('GET', path)
                        response = conn.getresponse()
                        body = response.read()
                    except Exception as error:
                        conn.close()
                        conn = None
                        answers.append({'path': path, 'status': 0, 'seconds': time.monotonic() - started, 'retryAfter': str(error), 'file': None})
                        continue
                    answer = {'path': path, 'status': response.status, 'seconds': time.monotonic() - started,
                              'retryAfter': response.getheader('Retry-After'), 'file': None}
                    answers.append(answer)
                    if response.status == 200 and save:
                        os.makedirs(os.path.join(folder, str(index)), exist_ok=True)
                        answer['file'] = os.path.join(folder, str(index), save)
                        open(answer['file'], 'wb').write(body)
                    if response.status == 503 and attempt < plan['retries']:
                        time.sleep(min(1.0, float(response.getheader('Retry-After') or 1)))
                        continue
                    return response.status, body
                return 0, b''
            status, playlist = fetch('/v1/intro/master.m3u8?token=' + token)
            lines = playlist.decode().splitlines() if status == 200 else []
            media = [line for line in lines if line and not line.startswith('#') and '.m3u8' in line.split('?')[0]]
            if media:
                status, playlist = fetch(media[0])
                lines = playlist.decode().splitlines() if status == 200 else []
            for line in lines:
                if line.startswith('#EXT-X-MAP:URI="'):
                    fetch(line[16:-1], 'init.mp4')
                elif line and not line.startswith('#'):
                    fetch(line, line.split('?')[0].split('/')[-1])
            results[index] = answers
        threads = [threading.Thread(target=student, args=(i, t)) for i, t in enumerate(plan['tokens'])]
        for thread in threads: thread.start()
        for thread in threads: thread.join()
        print(json.dumps(results))
        """
        let r = try h.run("/usr/bin/env", ["python3", "-c", script, String(port), plan, folder])
        try #require(r.status == 0, "crowd: \(r.stderr)")
        return try JSONDecoder().decode([[Answer]].self, from: Data(r.stdout.utf8))
    }

    /// The frames ffprobe decodes from a student's init segment followed by these segments, and
    /// what ffmpeg said on stderr decoding them (empty: no error).
    func decode(initSegment: String, segments: [String], into file: String) throws -> (frames: Int, errors: String) {
        var joined = try Data(contentsOf: URL(fileURLWithPath: initSegment))
        for segment in segments { joined += try Data(contentsOf: URL(fileURLWithPath: segment)) }
        try joined.write(to: URL(fileURLWithPath: file))
        let errors = try h.run("ffmpeg", ["-v", "error", "-i", file, "-map", "0:v", "-f", "null", "-"]).stderr
        let probe = try h.run("ffprobe", ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", file])
        return (Int(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1, errors)
    }
}

/// A tmpfs of `megabytes` mounted for a test (root only), unmounted when it goes.
final class SmallVolume {
    let path: String
    private(set) var mounted = false

    init(_ h: Harness, megabytes: Int) throws {
        path = h.path("volume")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let r = try h.run("mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
        mounted = r.status == 0
    }

    /// Bytes the volume still has room for.
    var freeBytes: Int {
        ((try? FileManager.default.attributesOfFileSystem(forPath: path))?[.systemFreeSize] as? NSNumber)?.intValue ?? 0
    }

    deinit {
        if mounted { _ = try? ChildProcess.run("/bin/umount", ["-l", path]) }
    }
}

/// Polls `condition` every 0.1 s for at most `seconds`: the seconds it took to hold, or nil.
func poll(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Double? {
    let started = Date()
    while Date().timeIntervalSince(started) < seconds {
        if try condition() { return Date().timeIntervalSince(started) }
        usleep(100_000)
    }
    return try condition() ? Date().timeIntervalSince(started) : nil
}
