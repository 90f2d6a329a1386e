/* cuzk server — the HTTP/1.1 + JSON API of `cuzk serve` over a cuzk_engine
 * (libmicrohttpd). docs/API.md describes every endpoint.
 *
 * Listens on TCP (cfg->listen, localhost by default) and, when cfg->socket is
 * set, on a Unix socket too. A bearer token (cfg->token) is required on every
 * request when set, and must be set to listen beyond localhost. Request bodies
 * are bounded (cfg->max_request_bytes), requests per client are rate-limited
 * (cfg->rate_limit), connections are bounded (cfg->max_connections) and a
 * client that stalls mid-request is dropped after cfg->request_timeout_s.
 *
 * The server owns no job state: everything it answers comes from the engine,
 * so several servers may front one engine. Thread-safe; no global state. */
#ifndef CUZK_SERVER_H
#define CUZK_SERVER_H

#include "engine/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_server cuzk_server;

/* Starts listening and serving e (which must outlive the server). The
 * settings come from the [server] section of cfg (copied). log (may be NULL)
 * gets one event per request and one per start/stop, as for the engine.
 * Errors: CUZK_ERR_USAGE for a bad listen address or a non-local address
 * without a token; CUZK_ERR_IO when the address or socket cannot be bound. */
cuzk_status cuzk_server_start(cuzk_server **out, cuzk_engine *e, const cuzk_config *cfg,
                              const cuzk_engine_hooks *log, cuzk_error *err);

/* The TCP URL actually bound ("http://127.0.0.1:9820"; with port 0 in the
 * config, the port the system chose). Valid until cuzk_server_stop. */
const char *cuzk_server_url(const cuzk_server *s);

/* Stops accepting connections and returns once every request in progress
 * has ended (long-polls end early with the job's current state). NULL is a
 * no-op. */
void cuzk_server_stop(cuzk_server *s);

#ifdef __cplusplus
}
#endif

#endif
