// swift-tools-version:6.0
import PackageDescription

// Dependency arrows point one way:
//   Animation (pure Swift) <- Overlay (compositor, FreeType) <- VideoWM (FFmpeg) <- videowm (CLI)
// Each C library gets its own system-library target with a small shim header.
let package = Package(
    name: "videowm",
    products: [
        .executable(name: "videowm", targets: ["videowm"]),
        .library(name: "VideoWM", targets: ["VideoWM"]),
        .library(name: "Overlay", targets: ["Overlay"]),
        .library(name: "Animation", targets: ["Animation"]),
    ],
    targets: [
        .systemLibrary(name: "CAVUtil", pkgConfig: "libavutil", providers: [.apt(["libavutil-dev"])]),
        .systemLibrary(name: "CAVCodec", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev"])]),
        .systemLibrary(name: "CAVFormat", pkgConfig: "libavformat", providers: [.apt(["libavformat-dev"])]),
        .systemLibrary(name: "CSwScale", pkgConfig: "libswscale", providers: [.apt(["libswscale-dev"])]),
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CFontconfig", pkgConfig: "fontconfig", providers: [.apt(["libfontconfig-dev"])]),

        .target(name: "Animation"),
        .target(name: "Overlay", dependencies: ["Animation", "CFreeType", "CFontconfig"]),
        .target(name: "VideoWM", dependencies: ["Animation", "Overlay", "CAVUtil", "CAVCodec", "CAVFormat", "CSwScale"]),
        .executableTarget(name: "videowm", dependencies: ["VideoWM", "Overlay", "Animation"]),

        .testTarget(name: "AnimationTests", dependencies: ["Animation"]),
        .testTarget(name: "OverlayTests", dependencies: ["Overlay"], resources: [.copy("References")]),
        .testTarget(name: "VideoWMTests", dependencies: ["VideoWM"]),
        .testTarget(name: "EndToEndTests", dependencies: []),
    ]
)
