/* Which queue backend a setting names (eng_queue_redact: queue_redact.c). */
#include <string.h>

#include "engine/queue.h"

const eng_queue_ops *eng_queue_backend(const char *where)
{
    if (!where || !where[0] || !strcmp(where, "sqlite"))
        return &eng_queue_sqlite;
    if (!strncmp(where, "postgresql://", 13) || !strncmp(where, "postgres://", 11) ||
        strchr(where, '='))
        return &eng_queue_postgres;
    return NULL;
}
