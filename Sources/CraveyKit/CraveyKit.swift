// CraveyKit: recording, media and playback on top of the library in CraveyCore, which it
// re-exports so that embedders import one module.
@_exported import CraveyCore
