/*
 * libsystemd, loaded when a unit, its journal or a passed socket is first
 * asked about, not linked: with what it pulls in (libgcrypt, libgpg-error,
 * liblz4, libzstd, liblzma, libcap) it maps about 0.9 MiB of resident pages
 * into the process, which a plain `record -- CMD` or `record -p PID` never
 * uses (bench/README.md, "Where the RSS is").  The functions sysd/ calls are
 * one list; each object that needs them keeps its own table.
 */
#ifndef TM_SYSD_SDLIB_H
#define TM_SYSD_SDLIB_H

#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-id128.h>
#include <systemd/sd-journal.h>

/* The soname loaded (Debian's libsystemd0). */
#define TM_SDLIB_SONAME "libsystemd.so.0"

/* Every libsystemd function sysd/ calls, each once.  The variadic ones are
 * taken in their va_list form (sd_bus_call_methodv, sd_bus_message_readv). */
#define TM_SDLIB_FUNCS(X)                                                                          \
	X(sd_bus_open_system)                                                                      \
	X(sd_bus_new)                                                                              \
	X(sd_bus_set_address)                                                                      \
	X(sd_bus_start)                                                                            \
	X(sd_bus_unref)                                                                            \
	X(sd_bus_flush_close_unref)                                                                \
	X(sd_bus_call_methodv)                                                                     \
	X(sd_bus_message_readv)                                                                    \
	X(sd_bus_message_read_array)                                                               \
	X(sd_bus_message_unref)                                                                    \
	X(sd_bus_get_property)                                                                     \
	X(sd_bus_get_property_string)                                                              \
	X(sd_bus_get_property_trivial)                                                             \
	X(sd_bus_error_free)                                                                       \
	X(sd_bus_error_is_set)                                                                     \
	X(sd_journal_open)                                                                         \
	X(sd_journal_close)                                                                        \
	X(sd_journal_add_match)                                                                    \
	X(sd_journal_seek_head)                                                                    \
	X(sd_journal_seek_tail)                                                                    \
	X(sd_journal_previous)                                                                     \
	X(sd_journal_next)                                                                         \
	X(sd_journal_process)                                                                      \
	X(sd_journal_get_fd)                                                                       \
	X(sd_journal_get_timeout)                                                                  \
	X(sd_journal_get_data)                                                                     \
	X(sd_journal_get_realtime_usec)                                                            \
	X(sd_journal_get_monotonic_usec)                                                           \
	X(sd_id128_get_boot)                                                                       \
	X(sd_listen_fds)                                                                           \
	X(sd_is_socket)

/* One pointer a function, of the type its header declares, named as it is. */
struct tm_sdlib {
#define TM_SDLIB_FIELD(f) __typeof__(&f) f;
	TM_SDLIB_FUNCS(TM_SDLIB_FIELD)
#undef TM_SDLIB_FIELD
};

/*
 * Loads libsystemd (TM_SDLIB_SONAME; the first call maps it, and it stays
 * mapped for the process's life: RTLD_NODELETE, so the pointers never dangle)
 * and fills L with its functions.  0, or -1 after tm_error saying what is
 * missing ("cannot load libsystemd.so.0: ...; install libsystemd0").
 */
int tm_sdlib_load(struct tm_sdlib *l);

#endif
