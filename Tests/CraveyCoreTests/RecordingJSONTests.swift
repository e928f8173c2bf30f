import CraveyCore
import Foundation
import SystemPackage
import Testing

@Suite("RecordingJSON to a descriptor")
struct RecordingJSONTests {
    static let recordings = (0..<3_000).map { index in
        Recording(id: RecordingID(), type: .audio, title: "Clip \(index)", createdAt: Date(timeIntervalSince1970: Double(index)),
                  duration: 1, filePath: "Recordings/audio_\(index).m4a", fileSize: 1000)
    }

    @Test("the streamed array is the encoded array, several megabytes through a pipe")
    func streamed() async throws {
        // Given a pipe read on a thread of its own
        let (read, write) = try FileDescriptor.pipe()
        let reader = Task.detached { () throws -> Data in
            defer { try? read.close() }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = try buffer.withUnsafeMutableBytes { try read.read(into: $0) }
                if count == 0 { return data }
                data.append(contentsOf: buffer[..<count])
            }
        }

        // When streaming the recordings into it
        try RecordingJSON.write(Self.recordings, to: write)
        try write.close()

        // Then the reader got exactly the encoded array
        let received = try await reader.value
        #expect(received.count > 1 << 20)
        #expect(received == RecordingJSON.encode(Self.recordings))
    }

    @Test("a full disk throws ENOSPC and a pipe nobody reads throws EPIPE, instead of stopping silently")
    func failures() throws {
        // Given /dev/full, and a pipe whose reading end is closed (SIGPIPE ignored, as cravey does)
        signal(SIGPIPE, SIG_IGN)
        let full = try FileDescriptor.open("/dev/full", .writeOnly)
        defer { try? full.close() }
        let (read, write) = try FileDescriptor.pipe()
        try read.close()
        defer { try? write.close() }

        // When streaming into each
        // Then each failure is reported with its errno
        #expect(throws: Errno.noSpace) { try RecordingJSON.write(Self.recordings, to: full) }
        #expect(throws: Errno.brokenPipe) { try RecordingJSON.write(Self.recordings, to: write) }
    }
}
