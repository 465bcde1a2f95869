// swift-tools-version:6.0
import PackageDescription

// A package that uses videowm as a library, the way another project would: through the products
// it vends, never its C modules. scripts/test builds and runs both programs, so the library stays
// usable as a dependency (no unsafeFlags, no C types needed to call it):
// - StampFrame marks one frame with the compositor;
// - StudentCopy prepares a lecture and writes one student's copy, whole and one file at a time,
//   without the server.
let package = Package(
    name: "StampFrame",
    // Named, because a path dependency is otherwise known by its folder's name (a clone may not be called videowm).
    dependencies: [.package(name: "videowm", path: "../..")],
    targets: [
        .executableTarget(name: "StampFrame", dependencies: [
            .product(name: "VideoWM", package: "videowm"),
            // The compositor and the time type are the Overlay and Animation libraries' (VideoWM builds on them).
            .product(name: "Overlay", package: "videowm"),
            .product(name: "Animation", package: "videowm"),
        ]),
        .executableTarget(name: "StudentCopy", dependencies: [
            .product(name: "VideoWM", package: "videowm"),
        ]),
    ]
)
