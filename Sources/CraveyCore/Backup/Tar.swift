import Foundation

/// The POSIX tar format (ustar), which cravey's backups are written in so that `tar` (or any
/// archive manager) opens them: 512-byte blocks, a header block before each file's bytes, the
/// bytes padded to a whole block, two zero blocks at the end.
enum Tar {
    static let blockSize = 512

    /// One file in an archive: its name and its size in bytes; or a folder (its name ends in
    /// `/`, its size is 0).
    struct Entry: Equatable {
        var name: String
        var size: Int64
        var isFolder = false
    }

    /// The header block of a regular file, mode 0600, or of a folder, mode 0700 (so a person who
    /// unpacks a backup gets private folders whatever their umask). A size of 8 GiB or more is
    /// written in base-256, as GNU tar and libarchive write and read it.
    static func header(_ entry: Entry, modified: Date) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int64, at offset: Int, width: Int) {
            let digits = String(value, radix: 8)
            put(String(repeating: "0", count: max(width - 1 - digits.count, 0)) + digits, at: offset, width: width - 1)
        }
        put(entry.name, at: 0, width: 100)
        octal(entry.isFolder ? 0o700 : 0o600, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        if entry.size < 0o77777777777 {
            octal(entry.size, at: 124, width: 12)
        } else {
            block[124] = 0x80
            for index in 0..<8 { block[135 - index] = UInt8(truncatingIfNeeded: entry.size >> (8 * index)) }
        }
        octal(Int64(modified.timeIntervalSince1970), at: 136, width: 12)
        block[156] = UInt8(ascii: entry.isFolder ? "5" : "0")
        put("ustar", at: 257, width: 6)
        put("00", at: 263, width: 2)
        put("cravey", at: 265, width: 32)
        put("cravey", at: 297, width: 32)
        // The checksum is summed with its own field as spaces.
        for index in 148..<156 { block[index] = UInt8(ascii: " ") }
        let sum = block.reduce(0) { $0 + Int64($1) }
        octal(sum, at: 148, width: 7)
        return block
    }

    /// How many zero bytes follow a file of `size` bytes, to a whole block.
    static func padding(after size: Int64) -> Int {
        Int((Int64(blockSize) - size % Int64(blockSize)) % Int64(blockSize))
    }

    /// Reads a header block: the entry, nil for a zero block (the end). Throws ``Damage`` for a
    /// block whose checksum is wrong, that is not ustar, or that is not a regular file.
    static func entry(in block: [UInt8]) throws(Damage) -> Entry? {
        guard block.contains(where: { $0 != 0 }) else { return nil }
        var summed = block
        for index in 148..<156 { summed[index] = UInt8(ascii: " ") }
        guard octal(block[148..<156]) == summed.reduce(0, { $0 + Int64($1) }) else { throw Damage("a header's checksum is wrong") }
        guard block[257..<262].elementsEqual("ustar".utf8) else { throw Damage("a header is not in the ustar format") }
        let isFolder = block[156] == UInt8(ascii: "5")
        guard isFolder || block[156] == UInt8(ascii: "0") || block[156] == 0 else {
            throw Damage("it holds something other than files and folders")
        }
        let size: Int64
        if block[124] == 0x80 {
            size = block[128..<136].reduce(0) { $0 << 8 | Int64($1) }
        } else {
            guard let value = octal(block[124..<136]) else { throw Damage("a header's size is not a number") }
            size = value
        }
        func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self) }
        let prefix = text(block[345..<500])
        return Entry(name: prefix.isEmpty ? text(block[0..<100]) : prefix + "/" + text(block[0..<100]), size: size, isFolder: isFolder)
    }

    /// An octal field (spaces and NULs around it allowed); nil when it is not one.
    private static func octal(_ field: ArraySlice<UInt8>) -> Int64? {
        let digits = field.drop { $0 == UInt8(ascii: " ") }.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "7") }
        guard !digits.isEmpty else { return nil }
        return digits.reduce(0) { $0 * 8 + Int64($1 - UInt8(ascii: "0")) }
    }

    /// What is wrong with an archive that is not a sound one.
    struct Damage: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Reads an archive, one entry after the other: a plain file's bytes, or an encrypted one's
    /// plaintext (``ArchiveInput``).
    final class Reader {
        private let input: ArchiveInput

        init(_ input: ArchiveInput) {
            self.input = input
        }

        /// The next entry; nil at the archive's end. Its bytes must be read (``read(_:_:)``)
        /// before the next. Throws ``Damage`` or `Errno`.
        func next() throws -> Entry? {
            var block = [UInt8](repeating: 0, count: blockSize)
            guard try block.withUnsafeMutableBytes({ try fill($0) }) else { throw Damage("it ends before its end blocks") }
            return try Tar.entry(in: block)
        }

        /// The buffer a file's bytes are read into, 64 KiB at a time.
        private var buffer = [UInt8](repeating: 0, count: 1 << 16)

        /// Hands `entry`'s bytes to `body`, a piece at a time, and skips its padding.
        func read(_ entry: Entry, _ body: (ArraySlice<UInt8>) throws -> Void) throws {
            var left = entry.size
            while left > 0 {
                let count = Int(min(Int64(buffer.count), left))
                // Filled through a pointer: an inout slice of the array would copy it whole each time.
                guard try buffer.withUnsafeMutableBytes({ try fill(UnsafeMutableRawBufferPointer(rebasing: $0[..<count])) }) else {
                    throw Damage("it is cut short in \(entry.name)")
                }
                try body(buffer[..<count])
                left -= Int64(count)
            }
            var padding = [UInt8](repeating: 0, count: Tar.padding(after: entry.size))
            guard try padding.withUnsafeMutableBytes({ try fill($0) }) else { throw Damage("it is cut short after \(entry.name)") }
        }

        /// Fills `bytes` from the archive; false at its end first.
        private func fill(_ bytes: UnsafeMutableRawBufferPointer) throws -> Bool {
            var filled = 0
            while filled < bytes.count {
                let count = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]))
                guard count > 0 else { return false }
                filled += count
            }
            return true
        }
    }
}
