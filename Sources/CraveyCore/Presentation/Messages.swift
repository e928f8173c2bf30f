import Foundation

/// The words the command line adds to the library's errors: what a person can type to fix what
/// happened. The library says what happened and to what; only cravey's own programs (its commands
/// and the terminal app, which both read this) know its commands, options and scripts, so it is
/// `package`: an embedder reads the error's message and kind, and advises in its own words.
package enum Messages {
    /// The message a person reads for `error`: the library's, then the advice for this tool.
    package static func text(for error: CraveyError) -> String {
        ([error.message] + error.advice.map(words(for:))).joined(separator: " ")
    }

    /// One piece of advice in words.
    package static func words(for advice: CraveyError.Advice) -> String {
        switch advice {
        case .listRecordings:
            "Run `cravey list` to see the ids."
        case .checkLibrary:
            "Run `cravey doctor` to check the library."
        case .repairLibrary:
            "Run `cravey doctor --repair`."
        case .registerWithRepair:
            "Once the problem is fixed, `cravey doctor --repair` adds it to the library."
        case .moveDamagedDatabase(let path):
            "Move it aside (mv '\(path)' '\(path).damaged'); then `cravey doctor --repair` registers the clips in Recordings/ again, each with its title, notes, purpose and plays from its own copy."
        case .chooseLibrary:
            "Check the folder's permissions and free space, or choose another library with --library PATH."
        case .chooseEmptyFolder:
            "Choose a new or empty folder with --library PATH (or CRAVEY_LIBRARY); to add a file from it, use `cravey import FILE`."
        case .freeSpace:
            "Free some disk space and try again."
        case .moveAside(let place):
            "Move it aside (mv '\(place)' '\(place).moved'); the next command creates a real folder."
        case .replaceDatabaseLink(let path):
            "If it points at your library's database, put that file here in its place (mv TARGET '\(path)'); otherwise move it aside (mv '\(path)' '\(path).moved') and the next command starts an empty library."
        case .startSoundServer:
            "Start PulseAudio or PipeWire's pulse server, or run `scripts/pulse start` for a private one, then try again."
        case .restartSoundServer:
            "Restart it and try again."
        case .useLocalServers(let variable):
            variable == "DISPLAY"
                ? "Run it without the remote display (DISPLAY= cravey ...; over ssh, without -X), or allow servers over the network with `cravey settings set network.allow-servers true`."
                : "Unset \(variable) to use this computer's sound server, or allow servers over the network with `cravey settings set network.allow-servers true`."
        case .listDevices:
            "Run `cravey devices` to list them, then pass one with --device."
        case .checkCamera:
            "Check that it is connected, that no other program is using it and that you may open it (the `video` group), and see `cravey devices`; or record sound only with `cravey record` (without --video)."
        case .chooseCamera:
            "See `cravey devices`; to record sound only, run `cravey record`."
        case .installCameraLibraries:
            "It needs FFmpeg's libavdevice and libavfilter (`scripts/setup` installs them). Record sound only with `cravey record` (without --video)."
        case .forceToReplace:
            "Choose another name, or pass --force to replace a file."
        case .savePipeFirst(let path):
            "Save what is written to it as a file first (`cat \(path) > clip.m4a`) and import that file."
        case .recordInstead:
            "Name an audio or video file; to record from a microphone, use `cravey record`."
        case .installTranscriber:
            "Add it with `scripts/install --transcribe` (from cravey's source; about 620 MB, nothing leaves this computer), or in a checkout `scripts/setup --transcribe` (its build finds .build/transcriber by itself)."
        case .transcribe(let id):
            "Make it with `cravey transcribe \(id)`."
        case .upgrade:
            "Install the newer cravey to change it; this one only reads it."
        case .givePassphrase:
            "Run it at a terminal to type it, or give it on a file descriptor (--passphrase-fd N) or in a file named by CRAVEY_PASSPHRASE_FILE."
        case .decryptWithAge(let path):
            "Decrypt it with age first (age -d -o backup.tar '\(path)'), then restore backup.tar."
        case .keepWhatIsThere:
            "Import the complete file, or keep the part that is there with `ffmpeg -i <file> -c copy <new file>` and import that."
        }
    }
}
