// `cravey`: the library commands run here; media commands are handed to `cravey-media` before
// anything is parsed (see `CommandRoute`).
import CraveyCommands
import Foundation

signal(SIGPIPE, SIG_IGN)
// `cravey` alone opens the home screen on a terminal that can show it, unless the settings say
// not to: read here then, else once the command line is parsed, and handed to the command.
let early = HomeOptions.canShow ? Settings.read() : nil
let route = CommandRoute(CommandLine.arguments.dropFirst(), opensHome: early?.opensHomeScreen ?? false)
// A clip's words (--title, --notes, --purpose) are not left where every user's `ps` reads them.
HiddenArguments.hideFromProcessList()
if route.executable == .craveyMedia {
    handOff(route.arguments)
}
do {
    let command = try Cravey.parseAsRoot(route.arguments)
    let settings = early ?? Settings.read()
    // A settings file that is not read (a link, too large, one others can change) stops every command.
    try settings.refuseUnread(before: command)
    try await settings.run(command)
} catch is CommandRoute.HandOff where route.mayHandOff {
    handOff(route.arguments)
} catch {
    Cravey.exit(reporting: error)
}
