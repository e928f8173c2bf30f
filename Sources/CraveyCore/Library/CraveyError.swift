/// An error of the library: what happened, to which clip, file, device or database, and the
/// error underneath.
///
/// Its ``kind`` says what sort of failure it is, for a program to act on; its ``message`` says
/// what happened and to what, for a person; ``underlying`` keeps the error it came from (a GRDB
/// `DatabaseError` with its SQLite code, an `Errno`, an FFmpeg or PulseAudio error). Match on
/// the kind, not on the text. What a person should type to fix it is the command line's to say.
public struct CraveyError: Error, Sendable, CustomStringConvertible {
    /// What sort of failure an error is.
    public enum Kind: Sendable, Equatable {
        /// The input was refused: a title too long or holding a control character, an unknown
        /// purpose, a place that cannot be written to, a file that is not a regular file.
        case invalidInput
        /// A file that is not media FFmpeg can decode, or whose media is damaged.
        case undecodableMedia
        /// No such recording, or a file that is missing.
        case notFound
        /// No sound server, no such source or sink, or a camera that cannot be opened.
        case unavailable
        /// Something cannot be written: a full disk, permissions, a read-only library, a link
        /// where the library keeps a folder or its database.
        case cannotWrite
        /// The library was written by a newer cravey: it can be read, but nothing in it changed.
        case newerLibrary
        /// A configuration file that is not read: a link, not a regular file, larger than such a
        /// file may be, or one that another user owns or can change (it, or its folder).
        case unsafeConfiguration
        /// A backup that is damaged, cut short, altered or not a cravey backup: nothing in it was
        /// restored (or, found part way, nothing more).
        case damagedArchive
        /// Another process is changing the same clip (trimming or cleaning it), or changed it
        /// while this change was being made: nothing changed; trying again works.
        case busy
        /// A passphrase that does not open what it is for: a sync folder's key. (An encrypted
        /// backup opened with a wrong one is `.damagedArchive`, as it always was.)
        case wrongPassphrase
        /// A folder that cannot be a sync folder: not one and not empty, not a folder, or the
        /// library folder, inside it or holding it.
        case notSyncFolder
        /// Anything else.
        case other
    }

    public var kind: Kind
    /// What happened and to what, without advice about any program's options.
    public var message: String
    /// The error underneath, when there is one: a `DatabaseError`, an `Errno`, an `FFmpegError`.
    public var underlying: (any Error & Sendable)?
    /// What a person can do about it, in order, which the command line puts in words; empty when
    /// there is nothing to add.
    package var advice: [Advice] = []

    public init(_ kind: Kind, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.kind = kind
        self.message = message
        self.underlying = underlying
    }

    package init(_ kind: Kind, _ message: String, advice: Advice?, underlying: (any Error & Sendable)? = nil) {
        self.init(kind, message, underlying: underlying)
        self.advice = advice.map { [$0] } ?? []
    }

    public var description: String { message }

    /// How much of a person's words a message quotes: this many characters (Unicode scalars, so
    /// that a character of a million combining marks is not one) before it is cut.
    package static let quotedLength = 60

    /// Words a person gave (a title, a value, a line of a file) as a message quotes them, between
    /// `mark`s: whole when short, else their first ``quotedLength`` characters, "…" and how long
    /// they are, so that a message stays a line whatever it was given ('aaaa…' (5242880 characters)).
    /// Every message that quotes input quotes it through here.
    package static func quoted(_ text: some StringProtocol, _ mark: String = "'") -> String {
        let scalars = text.unicodeScalars
        guard !scalars.dropFirst(quotedLength).isEmpty else { return mark + String(text) + mark }
        let length = text.count
        return mark + String(String.UnicodeScalarView(scalars.prefix(quotedLength))) + "…" + mark
            + " (\(length) character\(length == 1 ? "" : "s"))"
    }

    /// The ways out a person has, named by the library and worded by the command line (which
    /// knows its own commands and options; an embedder's program has others).
    package enum Advice: Sendable, Equatable {
        /// The ids to choose from.
        case listRecordings
        /// Check the library's rows and files.
        case checkLibrary
        /// Repair the library (rows whose path leaves it, links where files belong).
        case repairLibrary
        /// A clip kept on disk without its row: the repair registers it once the cause is gone.
        case registerWithRepair
        /// The database at this path is damaged: move it aside, then register the clips again.
        case moveDamagedDatabase(String)
        /// A place the library cannot use: choose another library folder.
        case chooseLibrary
        /// A folder of other things given as the library: choose a new or empty one.
        case chooseEmptyFolder
        /// A full disk.
        case freeSpace
        /// Something at this path (a link, not a folder) stands where the library keeps a
        /// folder: move it aside, and a real folder is made.
        case moveAside(String)
        /// A link or special file stands where the database (or its -wal, -shm) belongs.
        case replaceDatabaseLink(String)
        /// No sound server answers.
        case startSoundServer
        /// The sound server went away.
        case restartSoundServer
        /// A sound server or display named over the network by this environment variable: use
        /// the computer's own, or allow the network.
        case useLocalServers(String)
        /// A source or sink that does not exist: the devices to choose from.
        case listDevices
        /// A camera that cannot be opened: what to check, or record sound only.
        case checkCamera
        /// No such camera: the cameras to choose from, or record sound only.
        case chooseCamera
        /// The synthetic camera needs FFmpeg's device and filter libraries; or record sound only.
        case installCameraLibraries
        /// Something is already at an output path: choose another, or replace a file.
        case forceToReplace
        /// A named pipe given to import: save what it carries to a file first.
        case savePipeFirst(String)
        /// A device given to import: record instead.
        case recordInstead
        /// The optional transcriber is not installed, or its model is missing or altered: install it.
        case installTranscriber
        /// The clip has no transcript yet: make it.
        case transcribe(String)
        /// A file cut short: import the whole file, or copy out the part that is there.
        case keepWhatIsThere
        /// A library written by a newer cravey: install that version (or a newer one).
        case upgrade
        /// An encrypted backup and no passphrase to read: the ways to give one.
        case givePassphrase
        /// An age file cravey does not open (encrypted to a key, a newer format): decrypt the one at this path with age first.
        case decryptWithAge(String)
    }
}
