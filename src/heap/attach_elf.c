/*
 * What `heap attach` reads about the target before it stops it: its memory
 * map (which object holds an address, where an object is loaded) and the
 * dynamic symbol tables of the objects as mapped (a function's address in
 * the target: its load address plus the symbol's value in the file, read
 * through /proc/PID/root so that a container's own libc is the one read).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "base/error.h"
#include "heap/attach.h"
#include "base/banned.h"

#define MAPS_MAX_BYTES   (8 << 20)
#define SYMTAB_MAX_BYTES (64 << 20)

char *tm_attach_maps_read(pid_t pid, size_t *len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return tm_error("cannot read %s: %s", path, strerror(errno)), NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	ssize_t got;
	while (buf && (got = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)got;
		if (n == cap && cap < MAPS_MAX_BYTES) {
			char *bigger = realloc(buf, cap * 2 + 1);
			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		} else if (n == cap) {
			break; /* bounded: the objects past 8 MiB of map are not looked at */
		}
	}
	close(fd);
	if (!buf)
		return tm_error("out of memory"), NULL;
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* One line of maps: its range, offset and path ("" for anonymous). */
static int map_line(const char *line, uint64_t *lo, uint64_t *hi, uint64_t *off, const char **path)
{
	unsigned long long a, b, o;
	int pos = 0;
	if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &a, &b, &o, &pos) < 3 || pos == 0)
		return -1;
	*lo = a, *hi = b, *off = o;
	*path = line + pos;
	return 0;
}

/* Copies the path at P (to the end of its line) into OUT. */
static void copy_path(const char *p, char *out, size_t size)
{
	size_t n = strcspn(p, "\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, p, n);
	out[n] = '\0';
}

int tm_attach_maps_object(const char *maps, uint64_t addr, char *path, size_t size)
{
	for (const char *l = maps; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		uint64_t lo, hi, off;
		const char *p;
		if (map_line(l, &lo, &hi, &off, &p) == 0 && addr >= lo && addr < hi) {
			copy_path(p, path, size);
			return 0;
		}
	}
	return -1;
}

int tm_attach_maps_base(const char *maps, int (*match)(const char *path, const void *arg),
                        const void *arg, uint64_t *base, char *path, size_t size)
{
	int found = 0;
	for (const char *l = maps; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		uint64_t lo, hi, off;
		const char *p;
		char here[4096];
		if (map_line(l, &lo, &hi, &off, &p) < 0 || off != 0 || *p != '/')
			continue;
		copy_path(p, here, sizeof(here));
		if (!match(here, arg) || (found && lo >= *base))
			continue;
		*base = lo;
		snprintf(path, size, "%s", here);
		found = 1;
	}
	return found ? 0 : -1;
}

/* Reads N bytes at OFF of FD into a fresh buffer (bounded), or NULL. */
static void *read_at(int fd, uint64_t off, uint64_t n)
{
	if (n == 0 || n > SYMTAB_MAX_BYTES)
		return NULL;
	char *buf = malloc(n + 1);
	if (buf && pread(fd, buf, n, (off_t)off) != (ssize_t)n) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[n] = '\0';
	return buf;
}

int tm_attach_elf_machine(int fd, uint16_t *machine)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return -1;
	*machine = eh.e_machine;
	return eh.e_ident[EI_CLASS] == ELFCLASS64 ? 0 : 1;
}

/* The lowest PT_LOAD's page-aligned address in the file (the load base's). */
static int first_load(int fd, const Elf64_Ehdr *eh, uint64_t *vaddr)
{
	for (int i = 0; i < eh->e_phnum && i < 256; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh->e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD) {
			*vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
			return 0;
		}
	}
	return -1;
}

uint64_t tm_attach_elf_load_bytes(int fd)
{
	Elf64_Ehdr eh;
	uint64_t sum = 0;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return 0;
	for (int i = 0; i < eh.e_phnum && i < 256; i++) {
		Elf64_Phdr ph;
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) ==
		        (ssize_t)sizeof(ph) &&
		    ph.p_type == PT_LOAD)
			sum += ((ph.p_vaddr & 0xfff) + ph.p_memsz + 0xfff) & ~(uint64_t)0xfff;
	}
	return sum;
}

/* NAME's value in the dynamic symbol table SYMS (N bytes) with STRS (M). */
static int find_sym(const Elf64_Sym *syms, uint64_t n, const char *strs, uint64_t m,
                    const char *name, uint64_t *value)
{
	for (uint64_t i = 0; i < n / sizeof(*syms); i++) {
		const Elf64_Sym *s = &syms[i];
		if (s->st_name >= m || s->st_shndx == SHN_UNDEF || s->st_value == 0 ||
		    ELF64_ST_TYPE(s->st_info) != STT_FUNC || strcmp(strs + s->st_name, name))
			continue;
		*value = s->st_value;
		return 0;
	}
	return -1;
}

int tm_attach_elf_symbol(int fd, const char *name, uint64_t *value, uint64_t *load_vaddr)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || first_load(fd, &eh, load_vaddr) < 0)
		return -1;
	int rc = -1;
	for (int i = 0; i < eh.e_shnum && rc < 0; i++) {
		Elf64_Shdr sh, str;
		if (pread(fd, &sh, sizeof(sh), (off_t)(eh.e_shoff + (uint64_t)i * sizeof(sh))) !=
		        (ssize_t)sizeof(sh) ||
		    sh.sh_type != SHT_DYNSYM || sh.sh_link >= eh.e_shnum ||
		    pread(fd, &str, sizeof(str), (off_t)(eh.e_shoff + sh.sh_link * sizeof(str))) !=
		        (ssize_t)sizeof(str))
			continue;
		Elf64_Sym *syms = read_at(fd, sh.sh_offset, sh.sh_size);
		char *strs = read_at(fd, str.sh_offset, str.sh_size);
		if (syms && strs)
			rc = find_sym(syms, sh.sh_size, strs, str.sh_size, name, value);
		free(syms);
		free(strs);
	}
	return rc;
}

int tm_attach_open_in(pid_t pid, const char *path)
{
	char full[4200];
	if (snprintf(full, sizeof(full), "/proc/%d/root%s", (int)pid, path) >= (int)sizeof(full))
		return -1;
	int fd = open(full, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

int tm_attach_symbol(pid_t pid, const char *maps, int (*match)(const char *path, const void *arg),
                     const void *arg, const char *name, uint64_t *addr, char *path, size_t size)
{
	uint64_t base = 0, value, vaddr;
	if (tm_attach_maps_base(maps, match, arg, &base, path, size) < 0)
		return -1;
	int fd = tm_attach_open_in(pid, path);
	if (fd < 0)
		return -1;
	int rc = tm_attach_elf_symbol(fd, name, &value, &vaddr);
	close(fd);
	if (rc == 0)
		*addr = base - vaddr + value;
	return rc;
}
