/* A systemd unit's state over sd-bus (sysd/unit.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdarg.h>

#include "base/error.h"
#include "sysd/sdlib.h"
#include "sysd/unit.h"
#include "base/banned.h"

#define DEST    "org.freedesktop.systemd1"
#define UNIT_IF "org.freedesktop.systemd1.Unit"

struct tm_sdunit {
	struct tm_sdlib sd; /* libsystemd, loaded at open */
	sd_bus *bus;
	char name[TM_SDUNIT_NAME_MAX];
	char path[1024];   /* the unit's object path */
	char iface[64];    /* the interface with ControlGroup: ...systemd1.Service */
	bool has_main_pid; /* a service */
};

/* Unit types that have a cgroup of their own, and their D-Bus interface. */
static const char *const cg_types[][2] = {
    {"service", "Service"}, {"scope", "Scope"}, {"slice", "Slice"},
    {"socket", "Socket"},   {"mount", "Mount"}, {"swap", "Swap"},
};
static const char *const other_types[] = {"target", "timer", "path", "device", "automount"};

static const char *type_iface(const char *type)
{
	for (size_t i = 0; i < sizeof(cg_types) / sizeof(cg_types[0]); i++)
		if (!strcmp(type, cg_types[i][0]))
			return cg_types[i][1];
	return NULL;
}

static bool other_type(const char *type)
{
	for (size_t i = 0; i < sizeof(other_types) / sizeof(other_types[0]); i++)
		if (!strcmp(type, other_types[i]))
			return true;
	return false;
}

/* The characters systemd allows in a unit name (unit-name.c's VALID_CHARS_WITH_AT). */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr(":-_.\\@", c);
}

int tm_sdunit_name_normalize(const char *name, char *out, struct tm_err *err)
{
	const char *dot, *at;
	size_t len = strlen(name);

	if (!len)
		return tm_err_set(err, 0, "'': expected a unit name (NAME or NAME.service)");
	for (const char *p = name; *p; p++)
		if (!name_char(*p))
			return tm_err_set(err, 0,
			                  "'%s': a unit name has only A-Z a-z 0-9 and : - _ . \\ @ "
			                  "(systemd-escape makes one)",
			                  name);
	dot = strrchr(name, '.');
	if (dot && !type_iface(dot + 1) && other_type(dot + 1))
		return tm_err_set(err, 0, "'%s': a .%s unit has no cgroup of its own to record",
		                  name, dot + 1);
	if (dot && type_iface(dot + 1))
		snprintf(out, TM_SDUNIT_NAME_MAX, "%s", name);
	else if (len + strlen(".service") < TM_SDUNIT_NAME_MAX)
		snprintf(out, TM_SDUNIT_NAME_MAX, "%s.service", name);
	else
		out[0] = '\0';
	if (!out[0] || strlen(out) >= TM_SDUNIT_NAME_MAX - 1)
		return tm_err_set(err, 0, "'%.40s...': a unit name is at most %d characters", name,
		                  TM_SDUNIT_NAME_MAX - 1);
	dot = strrchr(out, '.');
	at = strchr(out, '@');
	if (dot == out || out[0] == '@' || (at && strchr(at + 1, '@')))
		return tm_err_set(err, 0, "'%s': not a valid unit name", name);
	if (at && at + 1 == dot)
		return tm_err_set(err, 0,
		                  "'%s': a template; name an instance of it (NAME@INSTANCE%s)",
		                  name, dot);
	return 0;
}

/* sd-bus errors as words: the bus error's message, or the errno's. */
static int bus_error(const struct tm_sdunit *u, const char *what, const sd_bus_error *e, int r)
{
	return tm_error("%s: %s", what,
	                e && u->sd.sd_bus_error_is_set(e) ? e->message : strerror(-r));
}

/* sd_bus_call_method(3) and sd_bus_message_read(3), through their va_list forms. */
static int call_method(struct tm_sdunit *u, const char *member, sd_bus_error *e,
                       sd_bus_message **reply, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = u->sd.sd_bus_call_methodv(u->bus, DEST, "/org/freedesktop/systemd1",
	                              "org.freedesktop.systemd1.Manager", member, e, reply, types,
	                              ap);
	va_end(ap);
	return r;
}

static int message_read(struct tm_sdunit *u, sd_bus_message *m, const char *types, ...)
{
	va_list ap;
	int r;

	va_start(ap, types);
	r = u->sd.sd_bus_message_readv(m, types, ap);
	va_end(ap);
	return r;
}

/* The system bus; without a bus daemon, systemd's private socket (root only). */
static int connect_bus(struct tm_sdunit *u)
{
	const struct tm_sdlib *sd = &u->sd;
	sd_bus **bus = &u->bus;
	int r = sd->sd_bus_open_system(bus);

	if (r >= 0)
		return 0;
	if ((r = sd->sd_bus_new(bus)) < 0)
		return tm_error("sd-bus: %s", strerror(-r));
	if ((r = sd->sd_bus_set_address(*bus, "unix:path=/run/systemd/private")) < 0 ||
	    (r = sd->sd_bus_start(*bus)) < 0) {
		*bus = sd->sd_bus_unref(*bus);
		return tm_error("cannot reach systemd over D-Bus (the system bus, "
		                "/run/systemd/private): %s; is systemd this machine's init?",
		                strerror(-r));
	}
	return 0;
}

static int get_string(struct tm_sdunit *u, const char *iface, const char *prop, char *out,
                      size_t size)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	char *s = NULL;
	int r = u->sd.sd_bus_get_property_string(u->bus, DEST, u->path, iface, prop, &e, &s);

	if (r < 0) {
		char what[320];
		snprintf(what, sizeof(what), "cannot read %s of unit '%s'", prop, u->name);
		bus_error(u, what, &e, r);
		u->sd.sd_bus_error_free(&e);
		return -1;
	}
	snprintf(out, size, "%s", s);
	free(s);
	return 0;
}

int tm_sdunit_open(const char *name, struct tm_sdunit **out)
{
	struct tm_sdunit *u = calloc(1, sizeof(*u));
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const char *path, *dot = strrchr(name, '.');
	char load[32];
	int r;

	*out = NULL;
	if (!u)
		return tm_error("out of memory");
	snprintf(u->name, sizeof(u->name), "%s", name);
	snprintf(u->iface, sizeof(u->iface), "org.freedesktop.systemd1.%s",
	         dot && type_iface(dot + 1) ? type_iface(dot + 1) : "Service");
	u->has_main_pid = dot && !strcmp(dot + 1, "service");
	if (tm_sdlib_load(&u->sd)) {
		free(u);
		return -1;
	}
	if (connect_bus(u))
		goto fail;
	r = call_method(u, "LoadUnit", &e, &reply, "s", name);
	if (r < 0 || message_read(u, reply, "o", &path) < 0) {
		char what[320];
		snprintf(what, sizeof(what), "cannot load unit '%s'", name);
		bus_error(u, what, &e, r);
		goto fail;
	}
	snprintf(u->path, sizeof(u->path), "%s", path);
	if (get_string(u, UNIT_IF, "LoadState", load, sizeof(load)))
		goto fail;
	if (!strcmp(load, "not-found")) {
		tm_error("unit '%s' does not exist (systemctl list-unit-files '%s' shows none)",
		         name, name);
		goto fail;
	}
	u->sd.sd_bus_message_unref(reply);
	*out = u;
	return 0;
fail:
	u->sd.sd_bus_error_free(&e);
	u->sd.sd_bus_message_unref(reply);
	tm_sdunit_close(u);
	return -1;
}

const char *tm_sdunit_name(const struct tm_sdunit *u)
{
	return u->name;
}

/* InvocationID (ay, 16 bytes) as hex; "" when it has none. */
static int get_invocation(struct tm_sdunit *u, char out[33])
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	const void *id = NULL;
	size_t n = 0;
	int r = u->sd.sd_bus_get_property(u->bus, DEST, u->path, UNIT_IF, "InvocationID", &e,
	                                  &reply, "ay");

	if (r >= 0)
		r = u->sd.sd_bus_message_read_array(reply, 'y', &id, &n);
	if (r < 0) {
		bus_error(u, "cannot read the unit's InvocationID", &e, r);
		u->sd.sd_bus_error_free(&e);
		u->sd.sd_bus_message_unref(reply);
		return -1;
	}
	out[0] = '\0';
	for (size_t i = 0; i < n && i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
	if (n != 16 || strspn(out, "0") == 32)
		out[0] = '\0';
	u->sd.sd_bus_message_unref(reply);
	return 0;
}

int tm_sdunit_state(struct tm_sdunit *u, struct tm_sdunit_state *st)
{
	const char *a;

	memset(st, 0, sizeof(*st));
	a = st->active_state;
	if (get_string(u, UNIT_IF, "LoadState", st->load_state, sizeof(st->load_state)) ||
	    get_string(u, UNIT_IF, "ActiveState", st->active_state, sizeof(st->active_state)) ||
	    get_invocation(u, st->invocation) ||
	    get_string(u, u->iface, "ControlGroup", st->cgroup, sizeof(st->cgroup)))
		return -1;
	st->loaded = !strcmp(st->load_state, "loaded");
	st->running = !strcmp(a, "active") || !strcmp(a, "activating") || !strcmp(a, "reloading") ||
	              !strcmp(a, "deactivating");
	if (u->has_main_pid) {
		sd_bus_error e = SD_BUS_ERROR_NULL;
		int r = u->sd.sd_bus_get_property_trivial(u->bus, DEST, u->path, u->iface,
		                                          "MainPID", &e, 'u', &st->main_pid);
		u->sd.sd_bus_error_free(&e);
		if (r < 0)
			st->main_pid = 0;
	}
	return 0;
}

enum tm_sdunit_change tm_sdunit_change(const struct tm_sdunit_state *st, const char *invocation)
{
	if (!st->running)
		return TM_SDUNIT_STOPPED;
	if (!strcmp(st->invocation, invocation))
		return TM_SDUNIT_SAME;
	/* each property is its own call: a unit that stops between them reads
	 * as deactivating with its invocation already cleared */
	return st->invocation[0] ? TM_SDUNIT_RESTARTED : TM_SDUNIT_UNSURE;
}

void tm_sdunit_close(struct tm_sdunit *u)
{
	if (!u)
		return;
	if (u->bus)
		u->sd.sd_bus_flush_close_unref(u->bus);
	free(u);
}

int tm_sdunit_restart(struct tm_sdunit *u)
{
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *reply = NULL;
	int r = call_method(u, "RestartUnit", &e, &reply, "ss", u->name, "replace");
	if (r < 0)
		bus_error(u, "cannot restart the unit", &e, r);
	u->sd.sd_bus_error_free(&e);
	u->sd.sd_bus_message_unref(reply);
	return r < 0 ? -1 : 0;
}
