import ArgumentParser
import CraveyCommands
import CraveyKit
import Foundation

/// Runs `cravey thumbnail` (its command line is ``ThumbnailOptions``, which `cravey` shows in
/// its help).
struct Thumbnail: ParsableCommand {
    static let configuration = ThumbnailOptions.configuration

    /// The command line, named so because the body reads it as `command.<option>`.
    @OptionGroup var command: ThumbnailOptions

    func run() throws {
        let library = try command.options.open()
        let recording = try FetchRecordingsUseCase(library: library).execute(idPrefix: command.id)
        let useCase = RegenerateThumbnailUseCase(library: library)
        if let output = command.output {
            try useCase.execute(recording, at: command.at, to: URL(fileURLWithPath: output), force: command.force)
            Terminal.diagnostic("Wrote the thumbnail of \"\(Format.visible(recording.title))\" to \(output).")
        } else {
            let updated = try useCase.execute(recording, at: command.at)
            Terminal.diagnostic("Made the thumbnail of \"\(Format.visible(updated.title))\" again.")
            try Terminal.print(updated, json: command.json) { $0.thumbnailPath ?? "" }
        }
    }
}
