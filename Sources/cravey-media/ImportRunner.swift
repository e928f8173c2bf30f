import CraveyCommands
import CraveyKit
import Foundation

extension MediaRunner {
    func importMedia(_ command: Import) async throws {
        try await reportingErrors {
            let metadata = try command.metadata.metadata()
            let library = try command.options.open()
            let recording = try await ImportRecordingUseCase(library: library)
                .execute(fileAt: URL(fileURLWithPath: command.file), metadata: metadata)
            Terminal.diagnostic("Imported \"\(recording.title)\" (\(recording.type.rawValue), \(Format.duration(recording.duration)), \(FileStorageManager.formatBytes(recording.fileSize))).")
            if command.json {
                Terminal.printJSON(recording)
            } else {
                Terminal.output(recording.id.uuidString.lowercased())
            }
        }
    }
}
