/*
 * `tidemark heap attach PID`: the heap split for a process already running
 * (docs/heap.md "attach").  The agent, libtidemark-heap-attach.so, is
 * loaded into it by making one of its threads call dlopen through ptrace
 * (no gdb), then started by a call of its tmh_attach_start(); it rewrites
 * the process's relocation entries for malloc & co. to the shim's
 * counting path, and lets go at `heap detach`, at the recorder's end or
 * when the recorder dies.
 */
#ifndef TM_HEAP_ATTACH_H
#define TM_HEAP_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct tm_attach_opts {
	pid_t recorder_pid;     /* 0: stay attached until `heap detach` */
	uint32_t interval_msec; /* how often the agent looks for a detach (>= 10) */
	bool dry_run;           /* check and say what would be done; touch nothing */
	const char *agent_path; /* NULL: the installed libtidemark-heap-attach.so */
	uint32_t sample_kib;    /* sites: mean KiB between samples, 0 none (first attach only) */
	int fail_at; /* a step, 1..TM_ATTACH_STEPS, to fail on purpose; 0 none (set only by
	                the test build's hook, cmd/heap.c: TIDEMARK_ATTACH_FAIL_AT) */
};

struct tm_attach_result {
	int64_t stopped_usec; /* the target's thread was stopped this long in all */
	int tries;            /* stops until one was at a safe place */
	int64_t hooks, objects, base_bytes;
	uint64_t region_bytes, agent_bytes; /* what stays mapped in the target */
	/* the allocator is linked into the executable: no entry rewritten, its
	 * own statistics read at each sample (base_bytes: its allocated figure,
	 * -1 when it has none) */
	bool linked;
	char family[16]; /* the allocator linked in ("jemalloc"), or "" */
};

/*
 * Attaches to PID (checks first: tm_attach_refusal).  0 and RES, or -1
 * after tm_error saying why (a refusal, or a step that failed: the process
 * is then left as it was: registers, the stack bytes written and the
 * agent unloaded).  With O->dry_run, writes the plan to OUT and returns 0
 * without stopping PID.  O->fail_at N fails step N on purpose
 * (tm_attach_step_name).
 */
int tm_heap_attach(pid_t pid, const struct tm_attach_opts *o, struct tm_attach_result *res,
                   FILE *out);

/* Asks PID's agent to let go and waits (up to TIMEOUT_MSEC) until it has:
 * 0 and *HOOKS (entries restored), or -1 after tm_error. */
int tm_heap_detach(pid_t pid, uint32_t timeout_msec, int64_t *hooks);

/* What a process looks like from outside, for the refusals. */
struct tm_attach_facts {
	int tracer_pid;       /* TracerPid in status (0: none) */
	int seccomp;          /* Seccomp in status: 0 off, 1 strict, 2 filter; -1 unknown */
	int ptrace_scope;     /* /proc/sys/kernel/yama/ptrace_scope; -1: no Yama */
	bool cap_sys_ptrace;  /* we hold CAP_SYS_PTRACE */
	bool our_child;       /* PID is a child of ours (Yama scope 1 allows it) */
	uint16_t e_machine;   /* of /proc/PID/exe */
	uint16_t our_machine; /* of the agent this build attaches with */
	bool elf64;
	int64_t forking_tid; /* a thread in fork/vfork/clone, or 0 */
	bool exe_ok;         /* /proc/PID/exe could be read */
	bool is_self;
	bool zombie;
};

/* The reason attaching to a process with facts F would be unsafe, or NULL. */
const char *tm_attach_refusal(const struct tm_attach_facts *f);

/* Reads F for PID; 0, or -1 after tm_error (PID gone, /proc unreadable). */
int tm_attach_facts_read(pid_t pid, struct tm_attach_facts *f);

/* Whether the syscall named in /proc/PID/task/TID/syscall's text is a
 * fork (fork, vfork, clone, clone3 of the machine with E_MACHINE). */
bool tm_attach_syscall_forks(const char *text, uint16_t e_machine);

/* The attach's steps, 1..TM_ATTACH_STEPS, for tm_attach_opts' fail_at. */
#define TM_ATTACH_STEPS 9
const char *tm_attach_step_name(int step);

/* attach_elf.c: PID's maps (bounded, NUL-terminated; free()), or NULL after
 * tm_error; the path of the object holding ADDR; the lowest load address
 * and path of the first object whose path MATCH accepts; ELF facts. */
char *tm_attach_maps_read(pid_t pid, size_t *len);
int tm_attach_maps_object(const char *maps, uint64_t addr, char *path, size_t size);
int tm_attach_maps_base(const char *maps, int (*match)(const char *path, const void *arg),
                        const void *arg, uint64_t *base, char *path, size_t size);
/* FD's e_machine: 0 for a 64-bit ELF, 1 for a 32-bit one, -1 not ELF. */
int tm_attach_elf_machine(int fd, uint16_t *machine);
/* NAME's value among FD's defined dynamic functions and the file's first
 * load address: 0, or -1. */
int tm_attach_elf_symbol(int fd, const char *name, uint64_t *value, uint64_t *load_vaddr);
/* The bytes FD's PT_LOAD segments take once mapped (pages), or 0. */
uint64_t tm_attach_elf_load_bytes(int fd);
/* PATH opened inside PID's root (a container's own file): fd, or -1. */
int tm_attach_open_in(pid_t pid, const char *path);
/* NAME's address in PID, in the first object MATCH accepts (its path into
 * PATH): 0, or -1. */
int tm_attach_symbol(pid_t pid, const char *maps, int (*match)(const char *path, const void *arg),
                     const void *arg, const char *name, uint64_t *addr, char *path, size_t size);

#endif
