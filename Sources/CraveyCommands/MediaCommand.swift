import ArgumentParser

/// The commands `cravey-media` runs (the ones that need FFmpeg or PulseAudio), in one typed
/// list. `cravey`'s verb table (``CommandRoute``) is made from it; `cravey`'s root lists each
/// one's ``definition`` (help, options, checks; `cravey` runs none of them but `quickplay`'s list,
/// `record --toggle`'s stop and a stored `waveform`); `cravey-media`'s root runs each through the
/// command its exhaustive switch names for it, whose name a test holds to the verb here. A new
/// media command is a case here, its definition, and its command in `CraveyMediaCommands`.
package enum MediaCommand: CaseIterable, Sendable {
    case home, record, play, quickplay, `import`, doctor, devices, thumbnail, waveform, trim, clean, share, restore,
         transcribe, transcript, remind, sync

    /// When `cravey` hands a command line over to `cravey-media`, which loads FFmpeg.
    package enum HandOff: Sendable, Equatable {
        /// Always, before anything is parsed.
        case always
        /// When an operand follows the verb: `quickplay 2` plays, `quickplay --json` lists in `cravey`.
        case withOperand
        /// Unless `--toggle` is given: `record --toggle`'s stop needs no FFmpeg, and its start is
        /// handed over from inside the command (``CommandRoute/HandOff``).
        case unlessToggle
        /// When the command, run in `cravey`, finds it needs FFmpeg and throws
        /// ``CommandRoute/HandOff``: `waveform` of a clip whose waveform is not stored yet,
        /// `sync` with media to import from the sync folder's inbox.
        case whenNeeded
        /// When this option is given: `remind --fire N` offers a clip on the desktop (D-Bus, a
        /// play); the rest of `remind` runs in `cravey`.
        case withOption(String)
    }

    package var handOff: HandOff {
        switch self {
        case .quickplay: .withOperand
        case .record: .unlessToggle
        case .waveform, .sync: .whenNeeded
        case .remind: .withOption("--fire")
        default: .always
        }
    }

    /// What `cravey` shows of the command: its configuration, options and validation.
    package var definition: any ParsableCommand.Type {
        switch self {
        case .home: HomeOptions.self
        case .record: RecordOptions.self
        case .play: PlayOptions.self
        case .quickplay: QuickPlay.self
        case .import: ImportOptions.self
        case .doctor: DoctorOptions.self
        case .devices: DevicesOptions.self
        case .thumbnail: ThumbnailOptions.self
        case .waveform: WaveformCommand.self
        case .trim: TrimOptions.self
        case .clean: CleanOptions.self
        case .share: ShareOptions.self
        case .restore: RestoreOptions.self
        case .transcribe: TranscribeOptions.self
        case .transcript: TranscriptOptions.self
        case .remind: Remind.self
        case .sync: Sync.self
        }
    }

    /// The verb a person types.
    package var verb: String { definition._commandName }

    /// The media command whose verb is `verb`, if any.
    package init?(verb: String) {
        guard let found = Self.allCases.first(where: { $0.verb == verb }) else { return nil }
        self = found
    }
}
