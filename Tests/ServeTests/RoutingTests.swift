import Testing
@testable import VideoWMServe
import VideoWM

@Suite("serve: routes and ranges")
struct RoutingTests {
    @Test func parsesEveryKindOfURL() {
        #expect(Route(path: "/healthz") == .health)
        #expect(Route(path: "/metrics") == .metrics)
        #expect(Route(path: "/v1/authorize") == .authorize)
        #expect(Route(path: "/v1/intro/master.m3u8") == .lecture(name: "intro", .master))
        #expect(Route(path: "/v1/intro/abc/media/720p.m3u8") == .lecture(name: "intro", .mediaPlaylist(revision: "abc", rendition: "720p")))
        #expect(Route(path: "/v1/intro/abc/shared/720p/3.m4s") == .lecture(name: "intro", .shared(revision: "abc", ResourcePath(rendition: "720p", file: "3.m4s"))))
        #expect(Route(path: "/v1/intro/abc/own/s1/720p/3.m4s") == .lecture(name: "intro", .own(revision: "abc", student: "s1", ResourcePath(rendition: "720p", file: "3.m4s"))))
        #expect(Route(path: "/v1/intro/abc/key") == .lecture(name: "intro", .key(revision: "abc")))
        for route in [LectureRoute.master, .mediaPlaylist(revision: "r", rendition: "a"), .key(revision: "r"), .shared(revision: "r", ResourcePath(rendition: "a", file: "b.m4s")),
                      .own(revision: "r", student: "s", ResourcePath(rendition: "a", file: "b"))] {
            #expect(Route(path: route.path(lecture: "x")) == .lecture(name: "x", route))
        }
    }

    @Test func refusesTraversalEscapesAndOddPaths() {
        for path in ["/v1/../master.m3u8", "/v1/intro/../intro/master.m3u8", "/v1/%2e%2e/master.m3u8", "/v1/intro%2Fx/master.m3u8",
                     "/v1/intro/abc/shared/720p/..%2F..%2Fsecret", "/v1//master.m3u8", "/v1/intro/master.m3u8/", "/v1/.hidden/master.m3u8",
                     "/v1/intro/abc/media/.m3u8", "/v1/intro", "", "v1/intro/master.m3u8", "/v1/intr o/master.m3u8", "/v1/intro/abc/shared/720p/3.m4s/x",
                     "/v1/intro/abc/own/s/720p/%33.m4s", "/healthz/", "/player/../x"] {
            #expect(Route(path: path) == nil, "\(path)")
        }
    }

    @Test func readsRangesAsRFC9110Says() {
        let size: UInt64 = 1000
        let cases: [(String?, ByteRange)] = [
            (nil, .whole),
            ("bytes=0-99", .part(offset: 0, length: 100)),
            ("bytes=900-", .part(offset: 900, length: 100)),
            ("bytes=900-5000", .part(offset: 900, length: 100)),
            ("bytes=999-999", .part(offset: 999, length: 1)),
            ("bytes=-100", .part(offset: 900, length: 100)),
            ("bytes=-5000", .part(offset: 0, length: 1000)),
            ("Bytes=10-19 ", .part(offset: 10, length: 10)),
            ("bytes = 10-19", .whole),
            ("bytes=1000-", .unsatisfiable),
            ("bytes=5000-6000", .unsatisfiable),
            ("bytes=-0", .unsatisfiable),
            ("bytes=99999999999999999999999-", .unsatisfiable),
            ("bytes=0-99999999999999999999999", .part(offset: 0, length: 1000)),
            // Malformed, several ranges or another unit: ignored, the whole file.
            ("bytes=abc", .whole), ("bytes=10-5", .whole), ("bytes=-", .whole), ("bytes=0-1,5-6", .whole),
            ("items=0-5", .whole), ("bytes 0-5", .whole), ("bytes=+5-6", .whole), ("", .whole),
        ]
        for (header, expected) in cases {
            #expect(ByteRange(header: header, size: size) == expected, "\(header ?? "nil")")
        }
        #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
    }
}
