#ifndef CRAVEY_CSDL2_SHIM_H
#define CRAVEY_CSDL2_SHIM_H

/* SDL2's types and constants, for the video player's window. Headers only: nothing is linked;
   Display/ loads libSDL2 with dlopen when a video plays with a display (see LibSDL.swift), so the
   audio player's start-up and memory do not pay for it. */
#include <SDL2/SDL.h>

/* Macros that do not import into Swift, wrapped as static inline functions. */
static inline int cravey_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }

#endif
