// `cravey-media`: runs the commands that need FFmpeg or PulseAudio. `cravey` hands them over; a
// person never needs to call it directly, but it accepts the same command line.
import CraveyCommands

MediaCommands.runner = MediaRunner()
await Cravey.run()
