// `cravey`: the library commands run here; media commands are handed to `cravey-media` before
// anything is parsed (see `CommandRoute`).
import CraveyCommands
import Foundation

signal(SIGPIPE, SIG_IGN)
// `cravey` alone opens the home screen on a terminal that can show it, unless the settings say not to.
let route = CommandRoute(CommandLine.arguments.dropFirst(), opensHome: HomeOptions.canShow && Settings.current.opensHomeScreen)
// A clip's words (--title, --notes, --purpose) are not left where every user's `ps` reads them.
HiddenArguments.hideFromProcessList()
if route.executable == .craveyMedia {
    handOff(route.arguments)
}
do {
    var command = try Cravey.parseAsRoot(route.arguments)
    // A settings file that is not read (a link, too large, one others can change) stops every command.
    try Settings.refuseUnreadFile(before: command)
    try command.run()
} catch is CommandRoute.HandOff where route.mayHandOff {
    handOff(route.arguments)
} catch {
    Cravey.exit(reporting: error)
}
