import Foundation
import Testing
@testable import CraveyCore

/// A waveform's files, as audiowaveform's `doc/DataFormat.md` lays them out.
@Suite("Waveform formats")
struct WaveformFormatTests {
    let waveform = Waveform(sampleRate: 48_000, samplesPerPeak: 480,
                            peaks: [.init(min: -32768, max: 32767), .init(min: 0, max: 0), .init(min: -1200, max: 3400)])

    /// Little-endian bytes of 32-bit fields followed by 16- or 8-bit values.
    func bytes(_ fields: [Int32], _ values: [Int16] = [], eightBit: [Int8] = []) -> Data {
        var data = Data()
        for field in fields { withUnsafeBytes(of: field.littleEndian) { data.append(contentsOf: $0) } }
        for value in values { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: eightBit.map { UInt8(bitPattern: $0) })
        return data
    }

    @Test("the binary format is version 2: a 24-byte header (2, 16-bit, rate, samples per peak, length, 1 channel), then each peak's min and max, and reads back")
    func binary() {
        let data = waveform.audiowaveformData()
        #expect(data == bytes([2, 0, 48_000, 480, 3, 1], [-32768, 32767, 0, 0, -1200, 3400]))
        #expect(Waveform(audiowaveformData: data) == waveform)
        #expect(Waveform.isAudiowaveformHeader(data.prefix(24), ofFileSized: Int64(data.count)))
        #expect(!Waveform.isAudiowaveformHeader(data.prefix(24), ofFileSized: Int64(data.count - 1)))
    }

    @Test("audiowaveform's other files read too: version 1, 8-bit values (scaled to 16 bits), two channels taken together")
    func otherVersions() {
        let one = bytes([1, 0, 44_100, 256, 2], [-5, 6, -7, 8])
        #expect(Waveform(audiowaveformData: one) == Waveform(sampleRate: 44_100, samplesPerPeak: 256,
                                                              peaks: [.init(min: -5, max: 6), .init(min: -7, max: 8)]))
        let eight = bytes([2, 1, 48_000, 512, 1, 2], eightBit: [-65, 63, -66, 64])
        let scale: Int16 = 256
        #expect(Waveform(audiowaveformData: eight)?.peaks == [Waveform.Peak(min: -66 * scale, max: 64 * scale)])
    }

    @Test("what is not a waveform file is refused: short, cut, too long, another version, no rate, no channel")
    func malformed() {
        let good = waveform.audiowaveformData()
        for data in [Data(), good.prefix(10), good.dropLast(), good + Data([0]),
                     bytes([3, 0, 48_000, 480, 0, 1]), bytes([2, 0, 0, 480, 0, 1]), bytes([2, 0, 48_000, 480, 0, 0]),
                     bytes([2, 0, 48_000, 480, -1, 1])] {
            #expect(Waveform(audiowaveformData: data) == nil, "\(Array(data))")
        }
    }

    @Test("the JSON is audiowaveform's, on one line, values in order")
    func json() throws {
        let text = String(decoding: waveform.audiowaveformJSON(), as: UTF8.self)
        #expect(text == #"{"version":2,"channels":1,"sample_rate":48000,"samples_per_pixel":480,"bits":16,"length":3,"data":[-32768,32767,0,0,-1200,3400]}"#)
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test("columns take the extremes of the peaks under them, or repeat a peak over several; the sparkline scales to the loudest")
    func columns() {
        #expect(waveform.columns(1) == [.init(min: -32768, max: 32767)])
        #expect(waveform.columns(6) == [waveform.peaks[0], waveform.peaks[0], waveform.peaks[1], waveform.peaks[1],
                                        waveform.peaks[2], waveform.peaks[2]])
        #expect(waveform.sparkline(width: 3) == "█▁▁")
        let quiet = Waveform(sampleRate: 100, samplesPerPeak: 1, peaks: [.init(min: -100, max: 100), .init(min: -50, max: 50), .init(min: 0, max: 0)])
        #expect(quiet.sparkline(width: 3) == "█▅▁")
        #expect(Waveform(sampleRate: 100, samplesPerPeak: 1, peaks: [.init(min: 0, max: 0)]).sparkline(width: 2) == "▁▁")
    }

    @Test("a PNG: signature, IHDR of the asked size (1-bit palette), PLTE, IDAT, IEND, each chunk's CRC-32 right")
    func png() throws {
        let png = [UInt8](waveform.pngImage(width: 10, height: 7))
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var offset = 8
        var types: [String] = []
        while offset < png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let body = Array(png[offset + 4..<offset + 8 + length])
            let crc = png[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(crc == crc32(body), "chunk \(types.count)")
            types.append(String(decoding: body.prefix(4), as: UTF8.self))
            if types.last == "IHDR" { #expect(Array(body[4..<17]) == [0, 0, 0, 10, 0, 0, 0, 7, 1, 3, 0, 0, 0]) }
            offset += 12 + length
        }
        #expect(types == ["IHDR", "PLTE", "IDAT", "IEND"])
    }

    /// CRC-32 as PNG defines it (ISO 3309), bit by bit: a witness independent of zlib's.
    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
