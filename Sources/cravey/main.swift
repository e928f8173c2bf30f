// `cravey`: the library commands run here; media commands are handed to `cravey-media`.
import CraveyCommands

await Cravey.run()
