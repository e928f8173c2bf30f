import Foundation

/// The sound recorder: the ``Recorder``'s configuration with one capture stage, the microphone
/// (PulseAudio, on its own thread), whose blocks the encoder stage turns into AAC in an `.m4a`.
struct AudioRecordingCoordinator: RecordingCoordinator {
    let options: RecordingOptions

    var type: RecordingType { .audio }

    func producers(control: RecordingControl) -> [(thread: String, body: @Sendable (Recorder.Stages.Producer) throws -> Void)] {
        [("cravey.capture", { [options] stage in try MicrophoneCapture.run(stage, options: options, control: control) })]
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
            case .audioPaused, .audioResumed, .picture, .videoEnd:
                break  // the blocks recorded follow one another: nothing to cut
            }
        }
    }
}
