import ArgumentParser
import CraveyCore
import Foundation

/// The `--library` option every command shares.
package struct LibraryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library folder (default: $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey).", valueName: "path"))
    package var library: String?

    package init() {}

    /// The library folder these options name.
    package var libraryURL: URL {
        LibraryLocation.resolve(explicit: library)
    }

    /// ``libraryURL``, refusing `--library ""` (exit 64): it must never quietly mean the
    /// default library.
    package func folder() throws -> URL {
        if library?.isEmpty == true {
            throw CraveyError(.invalidInput, "--library needs a folder; it was given an empty path. Name the library folder, or leave the option out for the default ($CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey).")
        }
        return libraryURL
    }

    /// Opens the library, and shows its warnings once on stderr. Only a command that adds clips
    /// (`creating`: record, import, restore, a repair, joining a sync folder) makes the library
    /// when it is not there; the others read a missing one as empty and create nothing.
    /// `--library ""` is refused (exit 64): it must never quietly mean the default library.
    package func open(creating: Bool = false) throws -> RecordingLibrary {
        let opened = try RecordingLibrary(at: folder(), creating: creating)
        for warning in opened.warnings { Terminal.diagnostic("cravey: warning: \(warning)") }
        // A change kept but not sent to the sync folder is said once, wherever the command writes
        // (a command's change may be made on a thread of its own).
        let captured = Terminal.captured, said = Locked(false)
        opened.sync.whenUnsent { folder, error in
            guard !said.withLock({ said in defer { said = true }; return said }) else { return }
            Terminal.$captured.withValue(captured) { Terminal.diagnostic(Self.unsent(folder, error)) }
        }
        return opened
    }

    /// What a command says of its change kept but not sent to the sync folder: one line, the
    /// folder, why, and that the next sync sends it.
    static func unsent(_ folder: URL, _ error: CraveyError) -> String {
        let why = error.kind == .notFound ? "it is not there, or has no devices/: is its disk mounted?" : Format.visible(error.message)
        return "cravey: warning: the change is saved, but not sent to the sync folder \(Format.visible(folder.path)) (\(why)); it is kept, and `cravey sync` (or the next change) sends it."
    }
}
