/* Chrome trace-event writer (the JSON format chrome://tracing and Perfetto
 * load): complete events ("ph":"X") with a name, a category, a process and a
 * thread lane, a start and a duration in microseconds, and optional string
 * arguments (names over 1 KiB and argument strings over 512 bytes are cut
 * short). Events are written as they come, so a long run does not hold
 * them in memory; the file is a valid JSON object once cuzk_trace_close ran.
 *
 * Thread-safe: any number of threads may add events to one trace at once. */
#ifndef CUZK_UTIL_TRACE_H
#define CUZK_UTIL_TRACE_H

#include <stdint.h>

#include "cuzk/cuzk.h"

typedef struct cuzk_trace cuzk_trace;

/* Creates PATH (replacing it) and writes the header. On error *out is NULL and
 * err names the file. */
cuzk_status cuzk_trace_open(cuzk_trace **out, const char *path, cuzk_error *err);

/* Names a process lane (pid) or a thread lane (pid, tid) in the viewer
 * (metadata events). name is JSON-escaped. */
void cuzk_trace_name_process(cuzk_trace *t, int pid, const char *name);
void cuzk_trace_name_thread(cuzk_trace *t, int pid, int tid, const char *name);

/* One complete event: start ts_us and duration dur_us in microseconds (any
 * common origin). args: nargs (key, value) string pairs, may be NULL when
 * nargs is 0. A NULL trace is accepted and ignored, so callers need not test
 * whether tracing is on. */
void cuzk_trace_complete(cuzk_trace *t, const char *name, const char *cat, int pid, int tid,
                         double ts_us, double dur_us, const char *const *args, int nargs);

/* Number of events written so far (metadata included). */
uint64_t cuzk_trace_count(cuzk_trace *t);

/* Finishes the JSON and closes the file. Returns CUZK_ERR_IO if any write
 * failed (the error names the file). Frees t in every case; NULL is a no-op. */
cuzk_status cuzk_trace_close(cuzk_trace *t, cuzk_error *err);

#endif
