#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "base/error.h"
#include "heap/dwlib.h"
#include "heap/symbolize.h"
#include "base/banned.h"

struct tm_sym {
	struct tm_dwlib dw; /* libdw, loaded at tm_sym_new */
	Dwfl_Callbacks cb;  /* libdw keeps a pointer to it for the life of dwfl */
	Dwfl *dwfl;
	struct tm_heap_mapping *maps;
	size_t nmaps;
};

/* One maps line: "start-end perms offset dev inode   path". */
static int parse_line(const char *line, size_t len, struct tm_heap_mapping *m)
{
	char perms[8], path[4096];
	unsigned long long start, end, off;
	int pos = -1;
	char tmp[4200];
	if (len >= sizeof(tmp))
		return 0;
	memcpy(tmp, line, len);
	tmp[len] = '\0';
	if (sscanf(tmp, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off, &pos) < 4 ||
	    pos < 0)
		return 0;
	const char *p = tmp + pos;
	if (perms[2] != 'x' || p[0] != '/' || strlen(p) >= sizeof(path))
		return 0;
	m->start = start;
	m->limit = end;
	m->offset = off;
	m->path = strdup(p);
	m->build_id[0] = '\0';
	return m->path ? 1 : -1;
}

ssize_t tm_heap_parse_maps(const char *buf, size_t len, struct tm_heap_mapping **out)
{
	size_t n = 0, cap = 16;
	struct tm_heap_mapping *m = malloc(cap * sizeof(*m));
	if (!m)
		return -1;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(buf + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (buf + i)) : len - i;
		if (n == cap) {
			struct tm_heap_mapping *g = realloc(m, 2 * cap * sizeof(*m));
			if (!g)
				goto oom;
			m = g;
			cap *= 2;
		}
		int r = parse_line(buf + i, l, &m[n]);
		if (r < 0)
			goto oom;
		n += (size_t)r;
		i += l + 1;
	}
	*out = m;
	return (ssize_t)n;
oom:
	tm_heap_mappings_free(m, n);
	return -1;
}

void tm_heap_mappings_free(struct tm_heap_mapping *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

static void fill_build_ids(struct tm_sym *s)
{
	for (size_t i = 0; i < s->nmaps; i++) {
		Dwfl_Module *mod = s->dw.dwfl_addrmodule(s->dwfl, s->maps[i].start);
		const unsigned char *bits;
		GElf_Addr vaddr, bias;
		if (mod)
			s->dw.dwfl_module_getelf(mod, &bias); /* build IDs come with the ELF */
		int len = mod ? s->dw.dwfl_module_build_id(mod, &bits, &vaddr) : -1;
		for (int k = 0; k < len && k < 40; k++)
			snprintf(s->maps[i].build_id + 2 * k, 3, "%02x", bits[k]);
	}
}

struct tm_sym *tm_sym_new(const char *maps, size_t len)
{
	struct tm_sym *s = calloc(1, sizeof(*s));
	if (!s) {
		tm_error("out of memory");
		return NULL;
	}
	if (tm_dwlib_load(&s->dw)) {
		free(s);
		return NULL;
	}
	s->cb.find_elf = s->dw.dwfl_linux_proc_find_elf;
	s->cb.find_debuginfo = s->dw.dwfl_standard_find_debuginfo;
	ssize_t n = tm_heap_parse_maps(maps, len, &s->maps);
	FILE *f = fmemopen((void *)maps, len, "r");
	s->dwfl = s->dw.dwfl_begin(&s->cb);
	if (n < 0 || !f || !s->dwfl) {
		if (f)
			fclose(f);
		s->nmaps = n < 0 ? 0 : (size_t)n;
		tm_error("cannot start the symbolizer: %s", s->dw.dwfl_errmsg(-1));
		tm_sym_free(s);
		return NULL;
	}
	s->nmaps = (size_t)n;
	s->dw.dwfl_report_begin(s->dwfl);
	int rc = s->dw.dwfl_linux_proc_maps_report(s->dwfl, f);
	fclose(f);
	s->dw.dwfl_report_end(s->dwfl, NULL, NULL);
	if (rc != 0)
		tm_warn("some mappings could not be read for symbols: %s", s->dw.dwfl_errmsg(-1));
	fill_build_ids(s);
	return s;
}

void tm_sym_free(struct tm_sym *s)
{
	if (!s)
		return;
	if (s->dwfl)
		s->dw.dwfl_end(s->dwfl);
	tm_heap_mappings_free(s->maps, s->nmaps);
	free(s);
}

const struct tm_heap_mapping *tm_sym_mappings(const struct tm_sym *s, size_t *n)
{
	*n = s->nmaps;
	return s->maps;
}

int tm_sym_lookup(struct tm_sym *s, uint64_t pc, const char **func, const char **file, int *line)
{
	*func = NULL;
	*file = NULL;
	*line = 0;
	int idx = -1;
	for (size_t i = 0; i < s->nmaps; i++)
		if (pc > s->maps[i].start && pc <= s->maps[i].limit) {
			idx = (int)i;
			break;
		}
	Dwarf_Addr addr = pc - 1;
	Dwfl_Module *mod = s->dw.dwfl_addrmodule(s->dwfl, addr);
	if (!mod)
		return idx;
	*func = s->dw.dwfl_module_addrname(mod, addr);
	Dwfl_Line *l = s->dw.dwfl_module_getsrc(mod, addr);
	if (l) {
		int lineno = 0;
		const char *src = s->dw.dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL);
		*file = src;
		*line = lineno;
	}
	return idx;
}
