/* Tiny reader for the whitespace-separated known-answer files under
 * tests/data/kat (one vector per line, '#' comments). Test-only helper. */
#ifndef CUZK_TEST_KAT_LINES_H
#define CUZK_TEST_KAT_LINES_H

#include <stdio.h>
#include <string.h>

#define KAT_MAX_TOK 24

typedef struct {
    FILE *f;
    char line[8192];
    char *tok[KAT_MAX_TOK];
    int ntok;
    int lineno;
} kat_reader;

/* Opens CUZK_TEST_DATA_DIR/kat/<name>; returns 0 on success. */
static inline int kat_open(kat_reader *k, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/kat/%s", CUZK_TEST_DATA_DIR, name);
    memset(k, 0, sizeof *k);
    k->f = fopen(path, "r");
    if (!k->f)
        fprintf(stderr, "cannot open %s\n", path);
    return k->f ? 0 : -1;
}

/* Next non-comment line split into tokens; returns the token count, 0 at EOF. */
static inline int kat_next(kat_reader *k)
{
    while (fgets(k->line, sizeof k->line, k->f)) {
        k->lineno++;
        char *hash = strchr(k->line, '#');
        if (hash)
            *hash = '\0';
        k->ntok = 0;
        for (char *s = strtok(k->line, " \t\r\n"); s && k->ntok < KAT_MAX_TOK; s = strtok(NULL, " \t\r\n"))
            k->tok[k->ntok++] = s;
        if (k->ntok > 0)
            return k->ntok;
    }
    return 0;
}

static inline void kat_close(kat_reader *k)
{
    if (k->f)
        fclose(k->f);
    k->f = NULL;
}

#endif
