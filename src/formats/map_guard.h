/* A file mapping that survives its file being truncated.
 *
 * A key used in its file mapping (cuzk_key_opts.map_in_place) reads pages
 * that the file must still hold: truncating the file (or rewriting it in
 * place shorter) makes the kernel raise SIGBUS at the next touch of a page
 * past the new end, which would end the process. A guarded mapping turns
 * that into an error: the library's SIGBUS handler (installed once, at the
 * first guarded mapping; process-wide, the one piece of global state of
 * the library) finds the faulting address in a guarded range, maps
 * anonymous zero pages over the range from that page to its end (so the
 * faulting read and every later one return zeros), marks the guard lost and
 * returns; the key's users check the mark at the end of a load and of every
 * proof and fail with CUZK_ERR_IO naming the file. A fault outside every
 * guarded range goes to the handler installed before ours (or, if there was
 * none, ends the process as SIGBUS does by default). Zero pages are valid
 * data for every reader (points at infinity, coefficient records of row 0,
 * wire 0), so no reader loops or indexes out of range meanwhile. */
#ifndef CUZK_FORMATS_MAP_GUARD_H
#define CUZK_FORMATS_MAP_GUARD_H

#include <stdbool.h>
#include <stddef.h>

typedef struct cuzk_map_guard cuzk_map_guard;

/* Guards [base, base + size) (a PROT_READ mapping we own). NULL when the
 * table of guarded mappings is full or the handler could not be installed:
 * the mapping then is unguarded. */
cuzk_map_guard *cuzk_map_guard_add(void *base, size_t size);
/* Whether a page of the range was lost (the file shrank under it). NULL: false. */
bool cuzk_map_guard_lost(const cuzk_map_guard *g);
/* Unguards and frees g (before the range is unmapped). NULL is a no-op. */
void cuzk_map_guard_remove(cuzk_map_guard *g);

#endif
