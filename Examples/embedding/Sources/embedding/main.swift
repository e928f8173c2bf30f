import CraveyKit

// The default library: $CRAVEY_LIBRARY, else ~/.local/share/cravey.
let library = try RecordingLibrary()

// Record 3 seconds from the default microphone, watching the level; then save the clip.
let recorder = try await library.record(RecordingOptions(maxDuration: 3))
for await event in recorder.events {
    if case .level(let level) = event, level.elapsed.truncatingRemainder(dividingBy: 1) < 0.04 {
        print("level \(Int(level.rms)) dBFS at \(level.elapsed) s")
    }
}
let clip = try await recorder.save(try RecordingMetadata(title: "Breathe", purpose: .motivational))

// List the library.
for recording in try library.recordings(sortedBy: .recent) {
    print(recording.id, recording.title, recording.duration, "s")
}

// Play the clip to the end; the play is counted when it ends.
let playback = try await library.play(clip)
let played = try await playback.result()
print("played \(played.secondsListened) s, \(played.recording?.playCount ?? 0) play(s) counted")

// Delete it: its file, its thumbnail and its row, all or nothing.
try library.delete(clip.id)
print("left:", try library.count())
