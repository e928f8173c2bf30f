#ifndef CRAVEY_CFFMPEG_SHIM_H
#define CRAVEY_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavcodec/bsf.h>
#include <libavutil/avutil.h>
#include <libavutil/channel_layout.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/samplefmt.h>
#include <libavutil/display.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
/* For the types only: libavfilter is loaded with dlopen when a picture must be turned (see
   FilterGraph.swift), so that the audio recorder does not load its dozens of libraries. */
#include <libavfilter/avfilter.h>


/* Macros that do not import into Swift, wrapped as static inline functions. */

static inline int cravey_averror(int posix_errno) { return AVERROR(posix_errno); }
static inline int cravey_averror_eof(void) { return AVERROR_EOF; }
static inline int cravey_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int cravey_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int cravey_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
static inline int cravey_averror_stream_not_found(void) { return AVERROR_STREAM_NOT_FOUND; }
static inline int cravey_averror_filter_not_found(void) { return AVERROR_FILTER_NOT_FOUND; }
static inline int cravey_averror_demuxer_not_found(void) { return AVERROR_DEMUXER_NOT_FOUND; }
static inline int64_t cravey_av_nopts_value(void) { return AV_NOPTS_VALUE; }

#endif
