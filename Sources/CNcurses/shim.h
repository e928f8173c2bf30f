#ifndef CRAVEY_CNCURSES_SHIM_H
#define CRAVEY_CNCURSES_SHIM_H

/* ncurses (the wide-character build, ncursesw) and its terminfo, for the home screen: a terminal's
   capabilities read from its terminfo entry, and a screen redrawn by what changed (doupdate). */
#define NCURSES_WIDECHAR 1
#define _XOPEN_SOURCE_EXTENDED 1
#include <ncursesw/curses.h>
#include <ncursesw/term.h>
#include <locale.h>
#include <langinfo.h>
#include <sys/ioctl.h>
#include <wchar.h>

/* Macros and globals that do not import into Swift, wrapped as static inline functions. */
static inline WINDOW *cravey_curses_stdscr(void) { return stdscr; }
static inline attr_t cravey_curses_bold(void) { return A_BOLD; }
static inline attr_t cravey_curses_reverse(void) { return A_REVERSE; }
static inline attr_t cravey_curses_dim(void) { return A_DIM; }
static inline attr_t cravey_curses_underline(void) { return A_UNDERLINE; }
static inline attr_t cravey_curses_color_pair(short pair) { return COLOR_PAIR(pair); }
static inline unsigned long cravey_tiocgwinsz(void) { return TIOCGWINSZ; }
/* The standard streams ncurses draws on and takes as its input (it reads nothing there: KeyReader
   reads the keys); globals Swift 6 will not touch. */
static inline FILE *cravey_curses_stdout(void) { return stdout; }
static inline FILE *cravey_curses_stdin(void) { return stdin; }
/* The C library's column count of a character, which glibc declares for X/Open builds only. */
extern int wcwidth(wchar_t character);
static inline int cravey_wcwidth(wchar_t character) { return wcwidth(character); }

#endif
