import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyKit

/// Where a program finds the transcriber (``Transcriber/path(environment:executable:)``), on
/// folders laid out as an installation and a checkout's build are.
@Suite("The transcriber's place: named, beside the programs, or in a checkout's .build", .temporaryFiles)
struct TranscriberPlaceTests {
    /// An executable file at `path` under `root`, its folders made.
    func executable(_ path: String, under root: URL) async throws -> URL {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try await writeScript("#!/bin/sh\nexit 0\n", to: url)
        return url
    }

    @Test("a checkout's build (.build/<config>/ or .build/<triple>/<config>/) finds .build/transcriber; one beside the programs comes first, and the variable before both; empty, none")
    func found() async throws {
        let checkout = temporaryFolder().appendingPathComponent("checkout-\(UUID().uuidString.prefix(8))")
        let made = try await executable(".build/transcriber/cravey-transcriber", under: checkout).path
        let triple = checkout.appendingPathComponent(".build/x86_64-unknown-linux-gnu/debug/cravey-media")
        let config = checkout.appendingPathComponent(".build/release/cravey-media")
        #expect(Transcriber.path(environment: nil, executable: triple) == .found(made))
        #expect(Transcriber.path(environment: nil, executable: config) == .found(made))

        // Beside the program first; then the variable before both; empty, none at all.
        let beside = try await executable(".build/release/cravey-transcriber", under: checkout).path
        #expect(Transcriber.path(environment: nil, executable: config) == .found(beside))
        let named = try await executable("elsewhere/cravey-transcriber", under: checkout).path
        #expect(Transcriber.path(environment: named, executable: config) == .found(named))
        #expect(Transcriber.path(environment: "", executable: config) == .missing("CRAVEY_TRANSCRIBER is empty"))
        #expect(Transcriber.path(environment: "/nonexistent/helper", executable: config) == .missing("no /nonexistent/helper"))
    }

    @Test("a program outside a .build folder, or a checkout without the transcriber made, finds none, saying where it looked")
    func missing() {
        let installed = URL(fileURLWithPath: "/nonexistent-prefix/bin/cravey-media")
        #expect(Transcriber.path(environment: nil, executable: installed) == .missing("no /nonexistent-prefix/bin/cravey-transcriber"))
        let bare = temporaryFolder().appendingPathComponent("bare/.build/debug/cravey-media")
        let place = Transcriber.path(environment: nil, executable: bare)
        #expect(place == .missing("no \(bare.deletingLastPathComponent().path)/cravey-transcriber, nor \(temporaryFolder().path)/bare/.build/transcriber/cravey-transcriber"))
    }
}
