import Foundation
import Testing

/// A fresh `cravey-test-<UUID>` folder under the system temporary directory, for one test's files.
///
/// The `.temporaryFiles` trait gives each test of a suite its own, as `temporaryFolder()`, and
/// removes it with everything in it when the test ends, whether it passed, failed or threw.
public final class TemporaryFolder: Sendable {
    /// The folder of the test running now; set by the `.temporaryFiles` trait.
    @TaskLocal static var current: TemporaryFolder?

    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cravey-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Removes the folder and everything in it, also what a test made read-only (a second call does nothing).
    public func remove() {
        guard (try? FileManager.default.removeItem(at: url)) == nil, FileManager.default.fileExists(atPath: url.path) else { return }
        _ = try? runBlocking("chmod", ["-R", "u+rwX", url.path])
        try? FileManager.default.removeItem(at: url)
    }
}

/// Gives each test its own `temporaryFolder()`, removed when the test ends, pass or fail.
public struct TemporaryFiles: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        let folder = try TemporaryFolder()
        do {
            try await TemporaryFolder.$current.withValue(folder) { try await function() }
        } catch {
            _ = try? await offPool { folder.remove() }
            throw error
        }
        _ = try? await offPool { folder.remove() }
    }
}

extension Trait where Self == TemporaryFiles {
    /// Each test gets its own `temporaryFolder()`, removed when the test ends, pass or fail.
    public static var temporaryFiles: Self { Self() }
}

/// The running test's own temporary folder (its suite needs the `.temporaryFiles` trait).
public func temporaryFolder() -> URL {
    guard let folder = TemporaryFolder.current else {
        preconditionFailure("temporaryFolder() outside a test with the .temporaryFiles trait: add it to the suite")
    }
    return folder.url
}

/// A fresh library folder in the running test's temporary folder.
public func temporaryLibrary() -> URL {
    temporaryFolder().appendingPathComponent("library-\(UUID().uuidString)")
}
