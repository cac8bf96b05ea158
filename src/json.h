#ifndef COMMTIME_JSON_H
#define COMMTIME_JSON_H

#include <stddef.h>
#include "util.h"

/*
 * A streaming JSON reader: libyajl's event parser (Debian libyajl-dev)
 * behind a small interface that knows the line it is on.  The text is fed
 * in chunks of any size; every value is reported to a callback as it is
 * read, so memory stays bounded by the longest string or number, whatever
 * the size of the document, even when the whole document is one line.
 * Why yajl: models/trace.md, "Reading".
 *
 * Each callback returns 1 to go on or 0 to stop; a callback that stops
 * says why with json_stream_fail() first.  Numbers are given as the text
 * the document holds (callbacks convert them as they need: a timestamp in
 * µs with a fraction of ns, an element count, a time).  A NULL callback
 * reads past that kind of value.
 */
struct json_cb {
	int (*null)(void *ctx);
	int (*boolean)(void *ctx, int b);
	int (*number)(void *ctx, const char *s, size_t len);
	int (*string)(void *ctx, const char *s, size_t len);
	int (*start_map)(void *ctx);
	int (*map_key)(void *ctx, const char *s, size_t len);
	int (*end_map)(void *ctx);
	int (*start_array)(void *ctx);
	int (*end_array)(void *ctx);
};

struct json_stream;

/* Nesting deeper than this is an error (yajl's own stack grows with it). */
#define JSON_DEPTH_MAX 256

/* Options of json_stream_new. */
#define JSON_MULTIPLE   1   /* several documents one after another (JSON lines) */
#define JSON_NOVALIDATE 2   /* do not reject strings that are not UTF-8 */

/*
 * A reader that calls cb with ctx; name is used in messages ("file").
 * Never NULL (allocation failure aborts, as xmalloc does).
 */
struct json_stream *json_stream_new(const struct json_cb *cb, void *ctx, const char *name,
				    int options);
void json_stream_free(struct json_stream *js);

/*
 * Read the next len bytes of the document.  Returns 0, or -1 with
 * "name:line: malformed JSON: ..." (or a callback's message) in eb.
 */
int json_stream_feed(struct json_stream *js, const char *buf, size_t len, struct errbuf *eb);

/* The end of the text: 0, or -1 when the document is incomplete or empty. */
int json_stream_finish(struct json_stream *js, struct errbuf *eb);

/* The line (from 1) of the text being read, for a callback's message. */
long json_stream_line(const struct json_stream *js);

/* Current nesting depth (0 outside every value; 1 inside the top object). */
int json_stream_depth(const struct json_stream *js);

/*
 * From a callback: fill the errbuf of the current feed with
 * "name:line: " and the message; returns 0 for the callback to return.
 */
int json_stream_fail(struct json_stream *js, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
