// swift-tools-version:6.0
// A program that embeds CraveyKit, as docs/embedding.md ("Using the library from Swift") tells a
// Swift developer to: cravey checked out beside this package, depended on by path.
// `scripts/package-check` builds and runs it against the test sound server, so the documented
// example cannot rot.
import PackageDescription

let package = Package(
    name: "embedding",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: "../cravey"),
    ],
    targets: [
        .executableTarget(name: "embedding", dependencies: [.product(name: "CraveyKit", package: "cravey")]),
    ],
    swiftLanguageModes: [.v6]
)
