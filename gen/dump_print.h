/* The printer behind `respgen dump`: renders decoder events as text as they come, so a value
 * may span any number of input chunks and no view has to outlive the buffer it points into. */
#ifndef RG_DUMP_PRINT_H
#define RG_DUMP_PRINT_H

#include "rg_dec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Output buffer. Text of the value being printed is held back until the value completes, so a
 * value cut short by bad input can be dropped as a whole; a value whose text outgrows the hold
 * limit is shown as it goes instead (its text would not fit in memory otherwise). */
typedef struct rg_out {
    FILE *f;
    char *data;
    size_t cap;
    size_t start; /* data[start..mark): complete text not written yet */
    size_t mark;  /* data[mark..len): text of the unfinished value */
    size_t len;
    bool shown_partial; /* part of the unfinished value is already written */
    int err;            /* errno of the first failure (write or allocation), 0 if none */
} rg_out;

void rg_out_init(rg_out *o, FILE *f);
void rg_out_free(rg_out *o);
void rg_out_write(rg_out *o, const char *p, size_t n);
/* Everything written so far belongs to complete values. */
void rg_out_commit(rg_out *o);
/* The unfinished value never completes: drop its text, or end its line if some is shown. */
void rg_out_abandon(rg_out *o);
/* Writes the complete text and flushes the stream. False once anything failed (see err). */
bool rg_out_flush(rg_out *o);

typedef enum rg_dump_format { RG_DUMP_HUMAN, RG_DUMP_JSON } rg_dump_format;

/* An open aggregate as the printer sees it; stack[0] stands for the top level. */
typedef struct rg_dump_frame {
    uint8_t kind;    /* rg_kind of the aggregate, RG_EV_NONE for the top level */
    bool cont;       /* an attribute just ended: the next value is the one it annotates */
    uint32_t closes; /* JSON: attributes whose '}' waits for the current element to complete */
    uint32_t width;  /* human: digits of the highest index */
    size_t indent;   /* human: column of this aggregate's index markers */
    uint64_t n;      /* elements begun; a map's keys and values count one each */
} rg_dump_frame;

struct rg_dump_style;

typedef struct rg_printer {
    rg_out *out;
    const struct rg_dump_style *style;
    bool pending_nl; /* human: the last value's line is not ended yet (a map value may follow) */
    bool in_str;     /* a chunked string is open */
    uint8_t str_sub; /* rg_kind of the string being printed */
    uint8_t fmt_len;
    char fmt[7];  /* JSON: the open verbatim string's format, printed after its text */
    size_t depth; /* frames open above stack[0] */
    rg_dump_frame stack[RG_MAX_DEPTH + 1];
} rg_printer;

void rg_printer_init(rg_printer *p, rg_out *out, rg_dump_format format);
/* Renders one event. False when the event does not fit the nesting seen so far (a decoder bug:
 * the printer's output is then meaningless). */
bool rg_printer_event(rg_printer *p, const rg_event *ev);

#endif
