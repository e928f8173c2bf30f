import Foundation

/// The sound recorder: the ``Recorder``'s configuration with one capture stage, the microphone
/// (PulseAudio, on its own thread), whose blocks the encoder stage turns into AAC in an `.m4a`.
struct AudioRecordingCoordinator: RecordingCoordinator {
    let options: RecordingOptions

    var type: RecordingType { .audio }

    func producers(clock: RecordingClock) -> [(thread: String, body: @Sendable (Recorder.Stages.Producer) throws -> Void)] {
        [("cravey.capture", { [options] stage in try MicrophoneCapture.run(stage, options: options, origin: clock.origin) })]
    }

    func encode(_ stage: Recorder.Stages.Consumer, into writer: RecordingFileWriter,
                result: inout RecordingResult, written: inout Int) throws {
        try stage.ready()
        while let item = try stage.pop() {
            switch item {
            case .samples(let block):
                try writer.append(block.samples)
                written += block.samples.count
            case .audioEnd(let summary):
                result.apply(summary)
            case .picture, .videoEnd:
                break
            }
        }
    }
}
