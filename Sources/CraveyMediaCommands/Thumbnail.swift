import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey thumbnail` (its command line is ``ThumbnailOptions``, which `cravey` shows in
/// its help).
struct Thumbnail: AsyncParsableCommand {
    static let configuration = ThumbnailOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: ThumbnailOptions

    func run() async throws {
        let library = try command.options.open()
        let recording = try library.recording(matching: command.id)
        if let output = command.output {
            try await library.analysis.writeThumbnail(of: recording, at: command.at, to: URL(fileURLWithPath: output), replacing: command.force)
            Terminal.diagnostic("Wrote the thumbnail of \"\(Format.visible(recording.title))\" to \(output).")
        } else {
            let updated = try await library.analysis.makeThumbnail(of: recording, at: command.at)
            Terminal.diagnostic("Made the thumbnail of \"\(Format.visible(updated.title))\" again.")
            try Terminal.print(updated, json: command.json) { $0.thumbnailPath ?? "" }
        }
    }
}
