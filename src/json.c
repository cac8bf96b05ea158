/*
 * The streaming JSON reader over libyajl (json.h).  yajl does not count
 * lines, so the text is handed to it one line at a time: the line number
 * of every callback and of every error is then the one being fed.  A
 * document on one line is fed in pieces of at most JSON_PIECE bytes, so
 * no copy of it is ever held.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "json.h"

#define JSON_PIECE (1u << 16)

struct json_stream {
	yajl_handle h;
	const struct json_cb *cb;
	void *ctx;
	const char *name;
	long line;
	int depth;
	int failed;          /* a callback (or the depth limit) stopped the parse */
	int seen;            /* some text that is not blank was fed */
	struct errbuf *eb;
	struct errbuf own;   /* when a callback fails outside a feed */
};

static int S_null(void *c)
{
	struct json_stream *js = c;
	return js->cb->null ? js->cb->null(js->ctx) : 1;
}

static int S_bool(void *c, int b)
{
	struct json_stream *js = c;
	return js->cb->boolean ? js->cb->boolean(js->ctx, b) : 1;
}

static int S_number(void *c, const char *s, size_t len)
{
	struct json_stream *js = c;
	return js->cb->number ? js->cb->number(js->ctx, s, len) : 1;
}

static int S_string(void *c, const unsigned char *s, size_t len)
{
	struct json_stream *js = c;
	return js->cb->string ? js->cb->string(js->ctx, (const char *)s, len) : 1;
}

static int S_deeper(struct json_stream *js)
{
	if (++js->depth > JSON_DEPTH_MAX)
		return json_stream_fail(js, "malformed JSON: nested deeper than %d levels",
					JSON_DEPTH_MAX);
	return 1;
}

static int S_start_map(void *c)
{
	struct json_stream *js = c;
	if (!S_deeper(js))
		return 0;
	return js->cb->start_map ? js->cb->start_map(js->ctx) : 1;
}

static int S_map_key(void *c, const unsigned char *s, size_t len)
{
	struct json_stream *js = c;
	return js->cb->map_key ? js->cb->map_key(js->ctx, (const char *)s, len) : 1;
}

static int S_end_map(void *c)
{
	struct json_stream *js = c;
	int rc = js->cb->end_map ? js->cb->end_map(js->ctx) : 1;
	js->depth--;
	return rc;
}

static int S_start_array(void *c)
{
	struct json_stream *js = c;
	if (!S_deeper(js))
		return 0;
	return js->cb->start_array ? js->cb->start_array(js->ctx) : 1;
}

static int S_end_array(void *c)
{
	struct json_stream *js = c;
	int rc = js->cb->end_array ? js->cb->end_array(js->ctx) : 1;
	js->depth--;
	return rc;
}

static const yajl_callbacks S_callbacks = {
	S_null, S_bool, NULL, NULL, S_number, S_string,
	S_start_map, S_map_key, S_end_map, S_start_array, S_end_array
};

struct json_stream *json_stream_new(const struct json_cb *cb, void *ctx, const char *name,
				    int options)
{
	struct json_stream *js = xmalloc(sizeof(*js));

	memset(js, 0, sizeof(*js));
	js->cb = cb;
	js->ctx = ctx;
	js->name = name;
	js->line = 1;
	js->eb = &js->own;
	js->h = yajl_alloc(&S_callbacks, NULL, js);
	if (!js->h)
		abort();
	if (options & JSON_MULTIPLE)
		yajl_config(js->h, yajl_allow_multiple_values, 1);
	if (options & JSON_NOVALIDATE)
		yajl_config(js->h, yajl_dont_validate_strings, 1);
	return js;
}

void json_stream_free(struct json_stream *js)
{
	if (!js)
		return;
	yajl_free(js->h);
	free(js);
}

long json_stream_line(const struct json_stream *js)
{
	return js->line;
}

int json_stream_depth(const struct json_stream *js)
{
	return js->depth;
}

int json_stream_fail(struct json_stream *js, const char *fmt, ...)
{
	char msg[sizeof(js->eb->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errbuf_set(js->eb, "%s:%ld: %s", js->name, js->line, msg);
	js->failed = 1;
	return 0;
}

/* yajl's message, first line only, without its final full stop. */
static void S_yajl_error(struct json_stream *js, const unsigned char *text, size_t len)
{
	unsigned char *e = yajl_get_error(js->h, 0, text, len);
	char msg[200];
	size_t n;

	snprintf(msg, sizeof(msg), "%s", e ? (const char *)e : "error");
	if (e)
		yajl_free_error(js->h, e);
	n = strcspn(msg, "\n");
	msg[n] = '\0';
	while (n > 0 && (msg[n - 1] == '.' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	if (strstr(msg, "premature EOF"))
		snprintf(msg, sizeof(msg), "unexpected end of file");
	errbuf_set(js->eb, "%s:%ld: malformed JSON: %s", js->name, js->line, msg);
}

static int S_parse(struct json_stream *js, const char *p, size_t n)
{
	yajl_status st = yajl_parse(js->h, (const unsigned char *)p, n);

	if (st == yajl_status_ok)
		return 0;
	if (!js->failed)   /* yajl's own error, not a callback's */
		S_yajl_error(js, (const unsigned char *)p, n);
	return -1;
}

int json_stream_feed(struct json_stream *js, const char *buf, size_t len, struct errbuf *eb)
{
	const char *p = buf, *end = buf + len;

	js->eb = eb ? eb : &js->own;
	if (js->failed)
		return -1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t i;

		if (n > JSON_PIECE)
			n = JSON_PIECE;
		if (!js->seen)
			for (i = 0; i < n; i++)
				if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n') {
					js->seen = 1;
					break;
				}
		if (memchr(p, '\0', n)) {
			errbuf_set(js->eb, "%s:%ld: binary data (a NUL byte); expected JSON",
				   js->name, js->line);
			js->failed = 1;
			return -1;
		}
		if (S_parse(js, p, n) < 0)
			return -1;
		if (p[n - 1] == '\n')
			js->line++;
		p += n;
	}
	return 0;
}

int json_stream_finish(struct json_stream *js, struct errbuf *eb)
{
	js->eb = eb ? eb : &js->own;
	if (js->failed)
		return -1;
	if (!js->seen)
		return errbuf_set(js->eb, "%s: empty file; expected JSON", js->name);
	if (yajl_complete_parse(js->h) != yajl_status_ok) {
		if (!js->failed)
			S_yajl_error(js, (const unsigned char *)"", 0);
		return -1;
	}
	return 0;
}
