/* Text for a terminal: width, colour, wrapping, --help (term.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "base/term.h"
#include "base/banned.h"

#include "tm_paths.h" /* build/gen: TM_DOCDIR_REL */

#define DEFAULT_WIDTH 80
#define MIN_WIDTH     20
#define MAX_WIDTH     1000

int tm_term_width(FILE *f)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;

	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);
		if (!*end && v >= MIN_WIDTH && v <= MAX_WIDTH)
			return (int)v;
	}
	if (f && isatty(fileno(f)) && !ioctl(fileno(f), TIOCGWINSZ, &ws) &&
	    ws.ws_col >= MIN_WIDTH && ws.ws_col <= MAX_WIDTH)
		return ws.ws_col;
	return DEFAULT_WIDTH;
}

bool tm_term_color(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *force = getenv("CLICOLOR_FORCE");
	const char *term = getenv("TERM");

	if (no && *no)
		return false;
	if (force && *force && strcmp(force, "0") && (f == stdout || f == stderr))
		return true; /* our own output, never a file or text gathered in memory */
	return f && isatty(fileno(f)) && !(term && !strcmp(term, "dumb"));
}

void tm_term_put_if(FILE *f, bool color, enum tm_tone tone, const char *s)
{
	static const char *const on[] = {
	    [TM_TONE_BAD] = "\033[1;31m",
	    [TM_TONE_WARN] = "\033[33m",
	    [TM_TONE_GOOD] = "\033[32m",
	};

	if (color)
		fprintf(f, "%s%s\033[0m", on[tone], s);
	else
		fputs(s, f);
}

void tm_term_put(FILE *f, enum tm_tone tone, const char *s)
{
	tm_term_put_if(f, tm_term_color(f), tone, s);
}

bool tm_term_outcome_tone(const char *name, enum tm_tone *tone)
{
	static const char *const bad[] = {"oom-killed", "killed", "failed", "invalid"};
	static const char *const warn[] = {"timeout", "interrupted"};

	for (size_t i = 0; name && i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!strcmp(name, bad[i]))
			return *tone = TM_TONE_BAD, true;
	for (size_t i = 0; name && i < sizeof(warn) / sizeof(warn[0]); i++)
		if (!strcmp(name, warn[i]))
			return *tone = TM_TONE_WARN, true;
	return false;
}

/* Columns of the N bytes at S (UTF-8 code points; colour escapes none). */
static int span_width(const char *s, size_t n)
{
	int w = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\033' && i + 1 < n && s[i + 1] == '[') {
			for (i += 2; i < n && (s[i] < '@' || s[i] > '~'); i++)
				;
			continue;
		}
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			w++;
	}
	return w;
}

int tm_term_text_width(const char *s)
{
	return span_width(s, strlen(s));
}

void tm_term_wrap(FILE *f, const char *text, int col, int indent, int width)
{
	int start = col;

	for (const char *p = text + strspn(text, " "); *p;) {
		size_t n = strcspn(p, " ");
		int w = span_width(p, n);
		if (col > start && col + 1 + w > width) {
			fprintf(f, "\n%*s", indent, "");
			col = start = indent;
		} else if (col > start) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)n, p);
		col += w;
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

/* The length of the token at P: spaces, then text up to the next space at
 * which a line may break (outside quotes when SHELL). */
static size_t token_len(const char *p, size_t left, bool shell)
{
	size_t i = 0;
	char quote = 0;

	while (i < left && p[i] == ' ')
		i++;
	for (; i < left; i++) {
		if (shell && quote && p[i] == quote)
			quote = 0;
		else if (shell && !quote && (p[i] == '\'' || p[i] == '"'))
			quote = p[i];
		else if (p[i] == ' ' && !quote)
			break;
	}
	return i;
}

/* Where a broken line goes on: after the first gap of 2+ spaces that
 * follows text (an option's help column; not the two spaces after a
 * sentence's full stop), else at the line's own indent. */
static int hanging_indent(const char *line, size_t len, int width)
{
	size_t lead = strspn(line, " ");

	for (size_t i = lead + 1; i + 1 < len; i++) {
		if (line[i] != ' ' || line[i + 1] != ' ' || line[i - 1] == ' ')
			continue;
		size_t end = i + strspn(line + i, " ");
		if (line[i - 1] == '.' && end - i == 2)
			continue;
		int col = span_width(line, end);
		if (end < len && col <= width / 2)
			return col;
		break;
	}
	return (int)(lead < len ? lead : 0);
}

/* Writes the LEN bytes at LINE, broken at spaces before WIDTH, going on at
 * INDENT (SHELL: ending broken lines in " \", never inside quotes). */
static void wrap_line(FILE *f, const char *line, size_t len, int width, int indent, bool shell)
{
	int col = 0, room = width - (shell ? 2 : 0);
	bool first = true;

	for (size_t i = 0; i < len;) {
		size_t n = token_len(line + i, len - i, shell);
		int w = span_width(line + i, n);
		if (!first && col + w > room && col > indent) {
			size_t sp = strspn(line + i, " ");
			fprintf(f, "%s\n%*s", shell ? " \\" : "", indent, "");
			col = indent;
			i += sp, n -= sp, w -= (int)sp;
		}
		fprintf(f, "%.*s", (int)n, line + i);
		col += w;
		i += n;
		first = false;
	}
	fputc('\n', f);
}

/* Whether the line Q (N bytes, at column 0) goes on the paragraph above
 * it: not a heading ("examples:"), a usage line or the exit status. */
static bool prose_goes_on(const char *q, size_t n)
{
	return q[n - 1] != ':' && strncmp(q, "usage:", 6) && strncmp(q, "Exit status:", 12);
}

/* The lines from P that go on the item or indented paragraph P starts
 * (indented to its hanging indent H, none an item of its own; a line at
 * column 0 stands alone); *FITS: all within WIDTH. */
static const char *paragraph_end(const char *p, int h, int width, bool *fits)
{
	size_t len = strcspn(p, "\n");

	*fits = span_width(p, len) <= width;
	if (!len || (!h && !prose_goes_on(p, len) && strncmp(p, "Exit status:", 12)))
		return p + len;
	for (p += len; *p == '\n' && p[1];) {
		const char *q = p + 1;
		size_t n = strcspn(q, "\n"), lead = strspn(q, " ");
		if (!n || (int)lead != h || hanging_indent(q, n, width) != h ||
		    (!h && !prose_goes_on(q, n)))
			break;
		*fits &= span_width(q, n) <= width;
		p = q + n;
	}
	return p;
}

/* The paragraph [P, END) as one line (its lines joined by a space) wrapped
 * at WIDTH, going on at H. */
static void write_paragraph(FILE *f, const char *p, const char *end, int h, int width)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return;
	for (const char *q = p; q < end;) {
		size_t n = strcspn(q, "\n");
		if (q != p) {
			fputs(q[-2] == '.' ? "  " : " ", m); /* a sentence's two spaces */
			q += strspn(q, " "), n = strcspn(q, "\n");
		}
		fprintf(m, "%.*s", (int)n, q);
		q += n;
		if (q < end && *q == '\n')
			q++;
	}
	fclose(m);
	wrap_line(f, buf, size, width, h, false);
	free(buf);
}

void tm_term_write_wrapped(FILE *f, const char *text, int width)
{
	bool examples = false, usage = false, fits;

	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		const char *end = p + len;
		if (len && p[0] != ' ')
			examples = len >= 9 && !strncmp(p + len - 9, "examples:", 9);
		usage = !strncmp(p, "usage:", 6) || (usage && len);
		size_t lead = strspn(p, " ");
		if (span_width(p, len) > width && (usage || p[lead] == '#')) {
			/* a synopsis line goes on past its command, alone; a
			 * comment stays one */
			wrap_line(f, p, len, width,
			          p[lead] == '#' ? (int)lead + 2
			          : lead         ? (int)lead + 4
			                         : 11,
			          false);
		} else if (usage) {
			fprintf(f, "%.*s\n", (int)len, p);
		} else if (examples && p[0] == ' ') {
			if (span_width(p, len) <= width)
				fprintf(f, "%.*s\n", (int)len, p);
			else
				wrap_line(f, p, len, width, (int)lead + 4, true);
		} else {
			int h = hanging_indent(p, len, width);
			end = paragraph_end(p, h, width, &fits);
			if (fits)
				fprintf(f, "%.*s\n", (int)(end - p), p);
			else
				write_paragraph(f, p, end, h, width);
		}
		p = end;
		if (*p == '\n')
			p++;
	}
}

void tm_term_write_lines(FILE *f, const char *text, int width)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		int h = hanging_indent(p, len, width);
		if (span_width(p, len) <= width)
			fprintf(f, "%.*s\n", (int)len, p);
		else
			wrap_line(f, p, len, width, h > (int)strspn(p, " ") ? h : h + 2, false);
		p += len;
		if (*p == '\n')
			p++;
	}
}

/* The folder the docs were installed in, beside this installed binary;
 * false in a checkout. */
static bool installed_docs(char *dir, size_t size)
{
	char exe[PATH_MAX], probe[PATH_MAX + 64], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return false;
	exe[n] = '\0';
	if (!(slash = strrchr(exe, '/')))
		return false;
	*slash = '\0';
	snprintf(probe, sizeof(probe), "%s/%s/README.md", exe, TM_DOCDIR_REL);
	if (access(probe, R_OK))
		return false;
	probe[strlen(probe) - strlen("/README.md")] = '\0';
	char *real = realpath(probe, NULL);
	if (!real || strlen(real) >= size) {
		free(real);
		return false;
	}
	memcpy(dir, real, strlen(real) + 1);
	free(real);
	return true;
}

void tm_help_write(FILE *f, const char *text)
{
	char dir[PATH_MAX];
	char *buf = NULL;
	size_t size = 0;
	FILE *m;

	if (!installed_docs(dir, sizeof(dir)) || !(m = open_memstream(&buf, &size))) {
		tm_term_write_wrapped(f, text, tm_term_width(f));
		return;
	}
	for (const char *p = text; *p;) {
		const char *d = strstr(p, "docs/");
		if (!d) {
			fputs(p, m);
			break;
		}
		fprintf(m, "%.*s", (int)(d - p), p);
		/* docs/NAME.md, not a longer path that ends in docs/ */
		bool doc = (d == text || strchr(" `('\"", d[-1])) && strcspn(d + 5, " .") > 0 &&
		           !strncmp(d + 5 + strcspn(d + 5, " ."), ".md", 3);
		fputs(doc ? dir : "docs", m);
		fputc('/', m);
		p = d + 5;
	}
	fclose(m);
	tm_term_write_wrapped(f, buf, tm_term_width(f));
	free(buf);
}
