#if canImport(Glibc)
import Glibc
#endif

/// Where the server listens: an IPv4 or bracketed IPv6 literal and a port
/// (`127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`; `localhost` means 127.0.0.1). Parsed once
/// from `--listen`; no name lookup, so the address is exactly the one the operator wrote.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public enum Family: Sendable, Equatable { case ipv4, ipv6 }
    public let host: String
    public let port: UInt16
    public let family: Family

    public init?(_ text: String) {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            guard !host.contains(":") else { return nil }  // an IPv6 address needs its brackets
            portText = text[text.index(after: colon)...]
        }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = UInt16(portText) else { return nil }
        let literal = host == "localhost" ? "127.0.0.1" : String(host)
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            family = .ipv4
        } else if inet_pton(AF_INET6, literal, &v6) == 1 {
            family = .ipv6
        } else {
            return nil
        }
        self.host = literal
        self.port = port
    }

    public var description: String { family == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The socket address, for the duration of `body`.
    func withSocketAddress<T>(_ body: (UnsafePointer<sockaddr>) throws -> T) rethrows -> T {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            return try withUnsafePointer(to: &address) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            return try withUnsafePointer(to: &address) { try $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body) }
        }
    }
}
