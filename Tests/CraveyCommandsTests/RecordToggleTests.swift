import CraveyCore
import CraveyTestSupport
import Foundation
import Testing
@testable import CraveyCommands

@Suite("The record key's file", .temporaryFiles)
struct RecordToggleTests {
    @Test("a toggle file that cannot be made says why and the fix that fits: a library that cannot be written made writable, a full disk freed, what is no file removed")
    func refusals() {
        let path = "/lib/record.toggle"
        for code in [EROFS, EACCES] {
            let error = RecordToggle.refusal(path, opening: code)
            #expect(error.kind == .cannotWrite)
            #expect(error.message.contains(String(cString: strerror(code))) && error.message.contains("Make its folder writable"), "\(error.message)")
            #expect(!error.message.contains("Remove it"))
        }
        #expect(RecordToggle.refusal(path, opening: ENOSPC).message.contains("Free some space"))
        #expect(RecordToggle.refusal(path, opening: ELOOP).message.contains("Remove it; cravey makes it again"))
    }

    @Test("a link where the toggle file belongs is refused, never followed, and what it points at is left alone")
    func link() throws {
        let folder = temporaryFolder()
        let outside = folder.appendingPathComponent("outside")
        try Data("mine".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("record.toggle"), withDestinationURL: outside)
        #expect {
            try RecordToggle(folder: folder)
        } throws: { error in
            (error as? CraveyError)?.kind == .cannotWrite && "\(error)".contains("Remove it")
        }
        #expect(try Data(contentsOf: outside) == Data("mine".utf8))
    }
}
