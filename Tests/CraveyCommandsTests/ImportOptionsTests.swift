import CraveyCore
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

/// The words `cravey import` gives a clip, from its command line, in process: the import itself
/// (`cravey-media`'s, through the door) stores them, a clip without a title under
/// `resolvedTitle(createdAt:)`'s.
@Suite("An import's title, from its command line")
struct ImportOptionsTests {
    /// The title an import given `arguments` (after `import`) stores for its clip.
    func title(_ arguments: [String]) throws -> String {
        let parsed = try CraveyCommands.Cravey.parseAsRoot(["import", "--library", "/nonexistent/library"] + arguments)
        return try #require(parsed as? ImportOptions).clipMetadata(with: Settings(at: URL(fileURLWithPath: "/nonexistent/cravey/settings.toml"))).resolvedTitle(createdAt: Date())
    }

    @Test("without --title the clip is named after its file (long names shortened at a word with …); --title wins; --title \"\" keeps the automatic title")
    func titleFromFileName() throws {
        // When / Then: no --title names it after the file, without the extension
        #expect(try title(["/music/coach-talk.mp3"]) == "coach-talk")
        #expect(try title(["/music/coach talk about breathing before the big race 2026.mp3"]) == "coach talk about breathing before the…")
        // When / Then: a title the person typed wins, and an empty one is the automatic title
        #expect(try title(["/music/coach-talk.mp3", "--title", "Breathe"]) == "Breathe")
        #expect(try title(["/music/coach-talk.mp3", "--title", ""]).hasPrefix("Recording "))
    }
}
