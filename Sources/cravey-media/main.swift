// `cravey-media`: runs the commands that need FFmpeg or PulseAudio. `cravey` hands them over; a
// person never needs to call it directly, but it accepts the same command line.
import ArgumentParser
import CraveyCommands
import CraveyKit
import CraveyMediaCommands
import Foundation

/// Parses once, runs the command, and maps whatever it throws to a message and an exit code once.
func main(_ arguments: [String]) async -> Never {
    do {
        let arguments = CommandRoute(arguments).arguments
        try CraveyMedia.checkAvailable(arguments)
        let command = try CraveyMedia.parse(arguments)
        let settings = Settings.read()
        // A settings file that is not read (a link, too large, one others can change) stops every command.
        try settings.refuseUnread(before: command)
        // No sound server or display over the network unless the settings allow it.
        LocalServers.allowsNetwork.store(settings.allowsNetworkServers, ordering: .relaxed)
        try await settings.run(command)
        // A display lost meanwhile would hold `exit` in a library's destructor (X11Connection).
        if X11Connection.wasLost {
            fflush(nil)
            _exit(0)
        }
        exit(0)
    } catch {
        CraveyMedia.exit(reporting: error)
    }
}

signal(SIGPIPE, SIG_IGN)
// SIGUSR1 pauses and resumes a recording or a play where one runs (`OnSignals`); elsewhere, as
// SIGUSR2 everywhere, it means nothing here, and ends nothing (a desktop's shortcut may send it).
signal(SIGUSR1, SIG_IGN)
signal(SIGUSR2, SIG_IGN)
// `cravey` hands a clip's words over out of sight of `ps`; given here directly, they are hidden
// from it at once.
let given = Array(CommandLine.arguments.dropFirst())
let arguments = HiddenArguments.received(shown: given) ?? given
HiddenArguments.hideFromProcessList()
// The manual page of this program (ArgumentParser's generate-manual asks each program for its
// help this way) is its own, cravey-media(1), not a second cravey(1).
if arguments.first == "--experimental-dump-help" { CraveyMediaManual.main(arguments) }
await main(arguments)
