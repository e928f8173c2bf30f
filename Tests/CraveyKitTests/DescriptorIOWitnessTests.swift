import CraveyTestSupport
import Foundation
import SystemPackage
import Testing
@testable import CraveyCore
@testable import CraveyKit

/// A rewrite through a descriptor, read back by ffprobe and ffmpeg through /proc.
extension DescriptorIOTests {
    /// A fragmented `.partial` recording of a 440 Hz tone, as the recorder leaves it.
    func fragmentedPartial(seconds: Double) throws -> URL {
        let writer = try RecordingFileWriter(partialOf: RecordingID(), in: library.store, options: RecordingOptions(), measuring: RecordingControl(sampleRate: 48_000, channels: 1))
        let samples = (0..<Int(48_000 * seconds)).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / 48_000)) }
        try writer.append(samples)
        try writer.finish()
        return writer.url
    }

    /// The four-character types of a file's top-level boxes (MP4 atoms), in file order.
    func topLevelBoxes(_ descriptor: FileDescriptor) throws -> [String] {
        var types: [String] = []
        var offset: Int64 = 0
        var header = [UInt8](repeating: 0, count: 16)
        while true {
            let count = try header.withUnsafeMutableBytes { try descriptor.read(fromAbsoluteOffset: offset, into: $0) }
            guard count >= 8 else { return types }
            let size32 = header[0..<4].reduce(0) { $0 << 8 | Int64($1) }
            let size = size32 == 1 ? header[8..<16].reduce(0) { $0 << 8 | Int64($1) } : size32
            types.append(String(decoding: header[4..<8], as: UTF8.self))
            guard size >= 8 else { return types }
            offset += size
        }
    }

    @Test("a faststart MP4 is written and read back through its descriptor while its name is gone or is another file")
    func faststartWithoutItsName() async throws {
        // Given the library's fragmented recording, opened beneath the folder, and a new file for its rewrite
        let partial = try fragmentedPartial(seconds: 2)
        let source = try FileDescriptor.open(partial.path, .readOnly, options: [.closeOnExec, .noFollow])
        defer { try? source.close() }
        let rewritten = ClipFiles(id: RecordingID(), type: .audio).media(.recording, finishing: true)
        let output = library.fileURL(rewritten)
        let file = try library.store.create(rewritten)
        let witness = try FileDescriptor.open(output.path, .readOnly, options: [.closeOnExec])
        defer { try? witness.close() }
        // And its name is removed, and another file put in its place
        try FileManager.default.removeItem(at: output)
        try Data(repeating: 0x55, count: 100_000).write(to: output)

        // When the recording is remuxed into it with +faststart (the index moved up front in the trailer)
        try Muxer.remux(Demuxer(reading: source, name: partial.lastPathComponent), into: file, format: Container.m4a.formatName)
        try file.close()

        // Then the file written has its index before its media
        let boxes = try topLevelBoxes(witness)
        let moov = try #require(boxes.firstIndex(of: "moov"), "boxes: \(boxes)")
        let mdat = try #require(boxes.firstIndex(of: "mdat"), "boxes: \(boxes)")
        #expect(moov < mdat)
        // And it reads back through a descriptor, and for ffprobe through /proc, as 2 s of AAC
        let info = try Demuxer(reading: witness, name: "rewritten.m4a").info
        #expect(info.audioStream?.codecName == "aac")
        #expect(abs((info.containerDuration ?? 0) - 2) < 0.1)
        let probe = try await Witness.ffprobe(URL(fileURLWithPath: "/proc/\(getpid())/fd/\(witness.rawValue)"))
        #expect(probe.audioCodec == "aac")
        #expect(abs(probe.duration - 2) < 0.1)
        let samples = try await Witness.decodeAudio(URL(fileURLWithPath: "/proc/\(getpid())/fd/\(witness.rawValue)"))
        #expect(abs(Witness.dominantFrequency(samples) - 440) < 5)
        // And the file now at its old name was never touched
        #expect(try Data(contentsOf: output) == Data(repeating: 0x55, count: 100_000))
    }
}
