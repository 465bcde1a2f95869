import Testing
@testable import VideoWMServe

@Suite("serve: listen addresses")
struct ListenAddressTests {
    @Test func readsIPv4IPv6AndLocalhost() {
        #expect(ListenAddress("127.0.0.1:8080") == ListenAddress("localhost:8080"))
        #expect(ListenAddress("0.0.0.0:80")?.family == .ipv4)
        #expect(ListenAddress("[::1]:8080")?.family == .ipv6)
        #expect(ListenAddress("[::1]:8080")?.description == "[::1]:8080")
    }

    @Test func refusesNamesAndBadPorts() {
        for text in ["example.com:80", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "::1:80", "[::1]80", "1.2.3:80"] {
            #expect(ListenAddress(text) == nil, "\(text)")
        }
    }
}
