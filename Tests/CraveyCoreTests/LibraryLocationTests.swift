import CraveyCore
import Foundation
import Testing

@Suite("LibraryLocation")
struct LibraryLocationTests {
    @Test("--library, else $CRAVEY_LIBRARY, else $XDG_DATA_HOME/cravey, else ~/.local/share/cravey")
    func order() {
        // Given every source of a location
        let all = ["CRAVEY_LIBRARY": "/env/lib", "XDG_DATA_HOME": "/xdg", "HOME": "/home/me"]

        // When resolving with fewer and fewer of them
        // Then the first present wins, and paths are standardised
        #expect(LibraryLocation.resolve(explicit: "/a/b/../c", environment: all).path == "/a/c")
        #expect(LibraryLocation.resolve(explicit: "", environment: all).path == "/env/lib")
        #expect(LibraryLocation.resolve(explicit: nil, environment: all.filter { $0.key != "CRAVEY_LIBRARY" }).path == "/xdg/cravey")
        #expect(LibraryLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/me"]).path
                == "/home/me/.local/share/cravey")
    }
}
