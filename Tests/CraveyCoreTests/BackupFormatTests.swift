@testable import CraveyCore
import CraveyTestSupport
import Foundation
import Testing

/// The two formats a backup is written in: the tar's headers read back here; the digest checked
/// against `sha256sum` in BackupDigestTests.swift.
@Suite("The backup's formats")
struct BackupFormatTests {
    @Test("a header reads back as it was written: small sizes in octal, 8 GiB and more in base-256, folders")
    func headers() throws {
        for entry in [Tar.Entry(name: "cravey-backup/Recordings/audio.m4a", size: 13_419),
                      Tar.Entry(name: "cravey-backup/big.mp4", size: 9 << 30),
                      Tar.Entry(name: "cravey-backup/", size: 0, isFolder: true)] {
            let block = Tar.header(entry, modified: Date(timeIntervalSince1970: 1_790_000_000))
            #expect(block.count == Tar.blockSize)
            #expect(try Tar.entry(in: block) == entry)
        }
        #expect(try Tar.entry(in: [UInt8](repeating: 0, count: Tar.blockSize)) == nil)
    }

    @Test("a header with one bit changed is refused")
    func damagedHeader() throws {
        var block = Tar.header(Tar.Entry(name: "cravey-backup/manifest.json", size: 1000), modified: Date())
        block[130] ^= 0x01
        #expect(throws: Tar.Damage.self) { try Tar.entry(in: block) }
    }
}
