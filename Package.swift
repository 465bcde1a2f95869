// swift-tools-version:6.0
import Foundation
import PackageDescription

// Dependency arrows point one way:
//   Animation (pure Swift) <- Overlay (compositor, FreeType, HarfBuzz, FriBidi) <- Media (FFmpeg, libheif, libwebp)
//     <- VideoWM (the library) <- VideoWMServe (HTTP) <- videowm (CLI)
//   Animation, Overlay <- LeakTrace (leak tracing on grey frames, no FFmpeg) <- VideoWM
//   VideoWM <- ServeAccess, ServeCache <- VideoWMServe (`videowm serve`) <- videowm
//   Packaging (DASH manifests, Common Encryption, HLS AES-128: pure Swift over libcrypto, no FFmpeg, nothing of VideoWM)
// Media is the only target that depends on CFFmpeg, and it imports it `internal`: no C type crosses its
// boundary, and VideoWM reaches Media's internals it needs through `package` declarations (as swift-nio
// keeps NIOCore below NIOPosix). The compiler, not a test, keeps FFmpeg out of the rest.
// Each C library gets a system-library target with a small shim header (FFmpeg's four share one).
let package = Package(
    name: "videowm",
    products: [
        .executable(name: "videowm", targets: ["videowm"]),
        .library(name: "VideoWM", targets: ["VideoWM"]),
        .library(name: "Overlay", targets: ["Overlay"]),
        .library(name: "Animation", targets: ["Animation"]),
        .library(name: "LeakTrace", targets: ["LeakTrace"]),
        .library(name: "VideoWMServe", targets: ["VideoWMServe"]),
        .library(name: "Packaging", targets: ["Packaging"]),
    ],
    targets: [
        // libavformat, libavcodec, libswscale, libswresample and libavutil in one module: see Sources/CFFmpeg/shim.h.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libswscale-dev", "libswresample-dev", "libavutil-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // HEIC/HEIF stills (iPhone photos) are decoded by libheif.
        .systemLibrary(name: "CHeif", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // OpenSSL's libcrypto: HMAC-SHA256, random bytes and constant-time comparison for keys (Sources/VideoWM/Keys).
        // FFmpeg's libraries load it into the process already, so it adds no memory.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),
        // Text shaping (HarfBuzz) and bidirectional reordering (FriBidi).
        .systemLibrary(name: "CHarfBuzz", pkgConfig: "harfbuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFriBidi", pkgConfig: "fribidi", providers: [.apt(["libfribidi-dev"])]),
        // libwebp's demux API decodes animated WebP logos (FFmpeg 5.1's decoder reads only still WebP).
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: [.apt(["libwebp-dev"])]),
        // libmicrohttpd, the HTTP/1.1 server under `videowm serve` (Sources/VideoWMServe/HTTP).
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // Tesseract's C API: `trace` reads the text of the mark in a still picture (Sources/VideoWM/TextRecognition).
        // Its header only: the library is opened when a still is first read (Sources/CTesseract/shim.h), not
        // linked into every command (no pkgConfig, whose flags would link it).
        .systemLibrary(name: "CTesseract", providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]),
        // JPEG files are read and written by libjpeg-turbo through a small C wrapper (libjpeg reports errors by longjmp).
        // No unsafeFlags anywhere, so other packages can depend on VideoWM by version; bench/run asks for the
        // DWARF 4 debug info Debian 12's valgrind needs with `-Xcc -gdwarf-4` on its own command line.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // Signal handlers and the list of temporary files they remove: C, because only async-signal-safe calls may run there.
        .target(name: "CProcessGuard"),

        .target(name: "Animation", swiftSettings: optimizedInDebug),
        // Delivery packaging over finished CMAF segments: content keys (KID:KEY files, CPIX), Common Encryption
        // (cenc, cbcs) as a transform of init and media segment bytes, HLS AES-128, DASH MPDs written and read.
        .target(name: "Packaging", dependencies: ["CCrypto"]),
        // EXIF and XMP of stills, read and written in pure Swift (no C): --keep-metadata, --set-metadata.
        .target(name: "ImageMetadata"),
        .target(name: "Overlay", dependencies: ["Animation", "CFreeType", "CFontconfig", "CHarfBuzz", "CFriBidi"], swiftSettings: optimizedInDebug),
        // Leak tracing on grey frames and mark footprints, no FFmpeg: VideoWM decodes the frames it compares.
        .target(name: "LeakTrace", dependencies: ["Animation", "Overlay"], swiftSettings: optimizedInDebug),
        // The FFmpeg boundary: owning wrappers over files, codecs, frames, conversion and muxing (and libheif's and
        // libwebp's decoders), with the typed errors they throw, which the whole library shares.
        .target(name: "Media", dependencies: ["Animation", "Overlay", "CFFmpeg", "CHeif", "CWebP", "CProcessGuard"]),
        .target(name: "VideoWM", dependencies: ["Media", "Packaging", "Animation", "Overlay", "ImageMetadata", "LeakTrace", "CCrypto", "CJPEG", "CProcessGuard", "CTesseract"]),
        // `videowm serve`'s access control, no HTTP: token keys (a raw key or a JWK Set, by kid), JWS
        // checks with a leeway, revocations, re-read while the server runs.
        .target(name: "ServeAccess", dependencies: ["VideoWM"]),
        // `videowm serve`'s cache folder, no HTTP: write-once files with a record of their length and
        // digest, locks across processes, eviction, answers from memory when the volume is full.
        .target(name: "ServeCache", dependencies: ["VideoWM", "CProcessGuard"]),
        // `videowm serve`: the HTTP origin, a thin layer over VideoWM (routes, render pool, signals, metrics).
        .target(name: "VideoWMServe", dependencies: ["VideoWM", "ServeAccess", "ServeCache", "Animation", "CMicroHTTPD", "CProcessGuard"]),
        .executableTarget(name: "videowm", dependencies: ["VideoWM", "VideoWMServe", "ServeAccess", "ServeCache", "Overlay", "Animation", "ImageMetadata", "LeakTrace", "Packaging"]),

        // Helpers shared by the test targets: a seeded generator for test data, an iPhone-style HEIC maker.
        .target(name: "TestSupport", dependencies: ["CHeif"], path: "Tests/TestSupport"),
        .testTarget(name: "AnimationTests", dependencies: ["Animation", "TestSupport"]),
        .testTarget(name: "OverlayTests", dependencies: ["Overlay", "TestSupport"], resources: [.copy("References")]),
        .testTarget(name: "VideoWMTests", dependencies: ["VideoWM", "Media", "TestSupport"]),
        .testTarget(name: "ImageMetadataTests", dependencies: ["ImageMetadata", "TestSupport"]),
        .testTarget(name: "PackagingTests", dependencies: ["Packaging", "TestSupport"]),
        // Black-box tests of the built binary; the library only says where marks land (the leaks' blur).
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "VideoWM", "Overlay", "Animation", "Packaging"]),
        .testTarget(name: "ServeTests", dependencies: ["VideoWMServe", "ServeAccess", "ServeCache", "VideoWM", "TestSupport"]),
        .testTarget(name: "LeakTraceTests", dependencies: ["LeakTrace", "Overlay", "Animation", "TestSupport"]),
        // The command line's option declarations against its help pages and the README.
        .testTarget(name: "CommandLineTests", dependencies: ["videowm", "VideoWMServe", "ServeAccess", "ServeCache"]),
    ]
)

/// The pixel and tracing loops (marks drawn, copies compared and scored) built with optimisation in
/// debug builds when `VIDEOWM_TEST_OPTIMIZED=1` (scripts/test sets it): unoptimised they run 4–5
/// times slower, and the end-to-end tests run them for minutes. Only then: SwiftPM refuses unsafe
/// flags in a package used as a versioned dependency, and nobody else's build sets the variable.
var optimizedInDebug: [SwiftSetting] {
    ProcessInfo.processInfo.environment["VIDEOWM_TEST_OPTIMIZED"] == "1" ? [.unsafeFlags(["-O"], .when(configuration: .debug))] : []
}
