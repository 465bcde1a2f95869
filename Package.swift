// swift-tools-version:6.0
import PackageDescription

// Dependency arrows point one way:
//   Animation (pure Swift) <- Overlay (compositor, FreeType, HarfBuzz, FriBidi) <- VideoWM (FFmpeg) <- videowm (CLI)
//   Animation, Overlay <- LeakTrace (leak tracing on grey frames, no FFmpeg) <- VideoWM
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
        .systemLibrary(name: "CTesseract", pkgConfig: "tesseract", providers: [.apt(["libtesseract-dev", "tesseract-ocr-eng"])]),
        // JPEG files are read and written by libjpeg-turbo through a small C wrapper (libjpeg reports errors by longjmp).
        // No unsafeFlags anywhere, so other packages can depend on VideoWM by version; bench/run asks for the
        // DWARF 4 debug info Debian 12's valgrind needs with `-Xcc -gdwarf-4` on its own command line.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        // Signal handlers and the list of temporary files they remove: C, because only async-signal-safe calls may run there.
        .target(name: "CProcessGuard"),

        .target(name: "Animation"),
        // EXIF and XMP of stills, read and written in pure Swift (no C): --keep-metadata, --set-metadata.
        .target(name: "ImageMetadata"),
        .target(name: "Overlay", dependencies: ["Animation", "CFreeType", "CFontconfig", "CHarfBuzz", "CFriBidi"]),
        // Leak tracing on grey frames and mark footprints, no FFmpeg: VideoWM decodes the frames it compares.
        .target(name: "LeakTrace", dependencies: ["Animation", "Overlay"]),
        .target(name: "VideoWM", dependencies: ["Animation", "Overlay", "ImageMetadata", "LeakTrace", "CFFmpeg", "CCrypto", "CJPEG", "CProcessGuard", "CWebP", "CHeif", "CTesseract"]),
        // `videowm serve`: the HTTP origin, a thin layer over VideoWM (tokens, routes, cache, render pool).
        .target(name: "VideoWMServe", dependencies: ["VideoWM", "Animation", "CMicroHTTPD", "CProcessGuard"]),
        .executableTarget(name: "videowm", dependencies: ["VideoWM", "VideoWMServe", "Overlay", "Animation", "ImageMetadata", "LeakTrace"]),

        // Helpers shared by the test targets: a seeded generator for test data, an iPhone-style HEIC maker.
        .target(name: "TestSupport", dependencies: ["CHeif"], path: "Tests/TestSupport"),
        .testTarget(name: "AnimationTests", dependencies: ["Animation", "TestSupport"]),
        .testTarget(name: "OverlayTests", dependencies: ["Overlay", "TestSupport"], resources: [.copy("References")]),
        .testTarget(name: "VideoWMTests", dependencies: ["VideoWM", "TestSupport"]),
        .testTarget(name: "ImageMetadataTests", dependencies: ["ImageMetadata", "TestSupport"]),
        // Black-box tests of the built binary; the library only says where marks land (the leaks' blur).
        .testTarget(name: "EndToEndTests", dependencies: ["TestSupport", "VideoWM", "Overlay", "Animation"]),
        .testTarget(name: "ServeTests", dependencies: ["VideoWMServe", "VideoWM", "TestSupport"]),
        .testTarget(name: "LeakTraceTests", dependencies: ["LeakTrace", "Overlay", "Animation", "TestSupport"]),
        // The command line's option declarations against its help pages and the README.
        .testTarget(name: "CommandLineTests", dependencies: ["videowm", "VideoWMServe"]),
    ]
)
