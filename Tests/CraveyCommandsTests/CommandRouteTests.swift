import Testing
@testable import CraveyCommands

/// Which executable a command line goes to, decided in process from the typed list of media
/// commands (``MediaCommand``), without starting either.
@Suite("Routing a command line")
struct CommandRouteTests {
    func route(_ arguments: String...) -> CommandRoute { CommandRoute(arguments) }

    @Test("every media command that is always handed over goes to cravey-media, a global --library moved after its verb")
    func mediaVerbs() {
        for media in MediaCommand.allCases where media.handOff == .always {
            let routed = route("--library", "/l", media.verb, "x")
            #expect(routed.executable == .craveyMedia, "\(media.verb)")
            #expect(routed.arguments == [media.verb, "--library", "/l", "x"])
            #expect(!routed.mayHandOff)
        }
    }

    @Test("quickplay plays in cravey-media with an operand and lists in cravey without; record --toggle stops in cravey; waveform runs in cravey and may hand itself over")
    func rules() {
        #expect(route("quickplay", "2").executable == .craveyMedia)
        #expect(route("quickplay", "--library", "/l", "--json").executable == .cravey)
        #expect(route("quickplay", "--", "-2").executable == .craveyMedia)
        #expect(route("record", "--seconds", "3").executable == .craveyMedia)
        let toggle = route("record", "--toggle")
        #expect(toggle.executable == .cravey && toggle.mayHandOff)
        let waveform = route("waveform", "3f2a")
        #expect(waveform.executable == .cravey && waveform.mayHandOff)
    }

    @Test("library commands, help, typos and nothing at all stay in cravey, and none may hand itself over; cravey alone on a terminal opens the home screen in cravey-media")
    func craveysOwn() {
        for arguments in [["list"], ["search", "x"], ["help", "record"], ["--help"], ["--version"], ["recrod"], [], ["--library", "/l"]] {
            let routed = CommandRoute(arguments)
            #expect(routed.executable == .cravey && routed.arguments == arguments && !routed.mayHandOff, "\(arguments)")
        }
        let home = CommandRoute(["--library", "/l"], opensHome: true)
        #expect(home.executable == .craveyMedia && home.arguments == ["home", "--library", "/l"])
    }

    @Test("the list names each verb once, and cravey's root lists every media command's definition")
    func listAndRoot() {
        let verbs = MediaCommand.allCases.map(\.verb)
        #expect(Set(verbs).count == verbs.count)
        #expect(verbs.allSatisfy { MediaCommand(verb: $0)?.verb == $0 })
        let root = Cravey.configuration.subcommands.map { $0._commandName }
        #expect(verbs.allSatisfy(root.contains), "\(root)")
    }
}
