import CraveyCommands

/// Runs media commands in this process, which links FFmpeg and PulseAudio.
struct MediaRunner: MediaCommandRunner {}
