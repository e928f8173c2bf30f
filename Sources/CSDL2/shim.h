#ifndef CRAVEY_CSDL2_SHIM_H
#define CRAVEY_CSDL2_SHIM_H

/* SDL2's types and constants, for the video player's window. Headers only: nothing is linked;
   Display/ loads libSDL2 with dlopen when a video plays with a display (see LibSDL.swift), so the
   audio player's start-up and memory do not pay for it. */
#include <SDL2/SDL.h>

/* Macros that do not import into Swift, wrapped as static inline functions. */
static inline int cravey_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }

/* What SDL_GetWindowWMInfo answers, laid out as <SDL2/SDL_syswm.h>'s SDL_SysWMinfo (SDL2's ABI:
   the version, the window system, then a union of 64 bytes whose X11 member is the Display and
   the Window). Declared here instead of including that header, which brings every name of Xlib. */
typedef struct cravey_sdl_wminfo {
    SDL_version version;
    int subsystem;
    union {
        struct {
            void *display;
            unsigned long window;
        } x11;
        Uint8 dummy[64];
    } info;
} cravey_sdl_wminfo;

/* SDL_SYSWM_X11 of SDL_SYSWM_TYPE. */
static inline int cravey_sdl_syswm_x11(void) { return 2; }

/* SDL_VERSION(&info->version): the version of the headers, which SDL_GetWindowWMInfo checks. */
static inline void cravey_sdl_wminfo_prepare(cravey_sdl_wminfo *info) { SDL_VERSION(&info->version); }

#endif
