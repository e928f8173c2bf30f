import Foundation
internal import CZlib

/// A PNG file of a picture with two colours (a palette image of 1 bit a pixel), as the PNG
/// specification (ISO/IEC 15948) lays it out: the signature, `IHDR`, `PLTE`, one `IDAT` of the
/// rows deflated by zlib, `IEND`, each chunk with its CRC-32.
///
/// Enough for a waveform, which any image viewer, browser or `ffmpeg -i` reads; no image
/// library is linked for it, only the system's zlib.
struct PNG {
    let width: Int
    let height: Int
    /// The colours of the pixels that are off and on, as RGB.
    let colours: (off: (UInt8, UInt8, UInt8), on: (UInt8, UInt8, UInt8))
    /// The rows, top first, each `(width + 7) / 8` bytes, its leftmost pixel in its first byte's
    /// highest bit.
    private var rows: [UInt8]

    /// A picture of `width` by `height` pixels (both at least 1), every pixel off.
    init(width: Int, height: Int, colours: (off: (UInt8, UInt8, UInt8), on: (UInt8, UInt8, UInt8))) {
        precondition(width > 0 && height > 0, "A PNG has at least one pixel.")
        self.width = width
        self.height = height
        self.colours = colours
        rows = [UInt8](repeating: 0, count: (width + 7) / 8 * height)
    }

    private var rowBytes: Int { (width + 7) / 8 }

    /// Turns on the pixels of column `x` from row `top` to row `bottom`, both included.
    mutating func drawColumn(_ x: Int, from top: Int, to bottom: Int) {
        let bit = UInt8(0x80) >> UInt8(x % 8)
        for y in max(top, 0)...min(bottom, height - 1) {
            rows[y * rowBytes + x / 8] |= bit
        }
    }

    /// The file's bytes.
    ///
    /// The corresponding C functions are zlib's `compress2` and `crc32`.
    func encoded() -> Data {
        // Each row is preceded by its filter type: 0, none; runs of equal bytes deflate well.
        var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * height)
        for y in 0..<height {
            filtered.replaceSubrange((rowBytes + 1) * y + 1..<(rowBytes + 1) * (y + 1),
                                     with: rows[rowBytes * y..<rowBytes * (y + 1)])
        }
        var compressed = [UInt8](repeating: 0, count: Int(compressBound(uLong(filtered.count))))
        var compressedCount = uLongf(compressed.count)
        let status = compressed.withUnsafeMutableBufferPointer { out in
            filtered.withUnsafeBufferPointer { input in
                compress2(out.baseAddress, &compressedCount, input.baseAddress, uLong(input.count), Z_BEST_COMPRESSION)
            }
        }
        // compressBound is enough for any input: zlib fails here only without memory.
        precondition(status == Z_OK, "zlib's compress2 failed (\(status)): out of memory")

        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [1, 3, 0, 0, 0])  // 1 bit, palette; deflate, no filter method, no interlace
        file.appendChunk("IHDR", header)
        file.appendChunk("PLTE", Data([colours.off.0, colours.off.1, colours.off.2, colours.on.0, colours.on.1, colours.on.2]))
        file.appendChunk("IDAT", Data(compressed.prefix(Int(compressedCount))))
        file.appendChunk("IEND", Data())
        return file
    }
}

private extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    /// Appends a chunk: its length, its type, its data and the CRC-32 of type and data.
    mutating func appendChunk(_ type: String, _ data: Data) {
        appendBigEndian(UInt32(data.count))
        let body = Data(type.utf8) + data
        append(body)
        let crc = body.withUnsafeBytes { bytes in
            crc32(0, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
        }
        appendBigEndian(UInt32(crc))
    }
}
