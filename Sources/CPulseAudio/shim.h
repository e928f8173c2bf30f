#ifndef CRAVEY_CPULSEAUDIO_SHIM_H
#define CRAVEY_CPULSEAUDIO_SHIM_H

#include <pulse/simple.h>
#include <pulse/error.h>
#include <pulse/pulseaudio.h>

/// PA_SAMPLE_S16NE is a macro choosing LE or BE; it does not import.
static inline pa_sample_format_t cravey_pa_sample_s16ne(void) { return PA_SAMPLE_S16NE; }
static inline pa_sample_format_t cravey_pa_sample_float32ne(void) { return PA_SAMPLE_FLOAT32NE; }

#endif
