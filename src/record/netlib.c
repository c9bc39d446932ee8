#include <dlfcn.h>
#include <string.h>

#include "base/error.h"
#include "base/util.h"
#include "record/netlib.h"
#include "base/banned.h"

/* dlsym into a function pointer without a cast the compiler frowns on. */
static int sym(struct tm_net *n, const char *name, void *fnptr)
{
	void *p = dlsym(n->handle, name);
	if (!p)
		return tm_error("libtidemark-net.so lacks '%s' (a build from another version?)",
		                name);
	memcpy(fnptr, &p, sizeof(p));
	return 0;
}

int tm_net_load(struct tm_net *n)
{
	char path[4096];

	memset(n, 0, sizeof(*n));
	if (tm_lib_path("libtidemark-net.so", "TIDEMARK_NET_LIB", path, sizeof(path)))
		return -1;
	/* NODELETE: a --scrape thread left to end its request alone
	 * (serve/client/scrape.h) may still run in the library after unload */
	n->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!n->handle)
		return tm_error("cannot load '%s': %s", path, dlerror());
	if (sym(n, "tm_pusher_new", &n->pusher_new) || sym(n, "tm_pusher_tick", &n->pusher_tick) ||
	    sym(n, "tm_pusher_finish", &n->pusher_finish) ||
	    sym(n, "tm_pusher_reached", &n->pusher_reached) ||
	    sym(n, "tm_pusher_free", &n->pusher_free) ||
	    sym(n, "tm_prom_server_start", &n->prom_start) ||
	    sym(n, "tm_prom_server_update", &n->prom_update) ||
	    sym(n, "tm_prom_server_stop", &n->prom_stop) ||
	    sym(n, "tm_prom_server_set_run", &n->prom_set_run) ||
	    sym(n, "tm_prom_server_end_run", &n->prom_end_run) ||
	    sym(n, "tm_pusher_machine", &n->pusher_machine) ||
	    sym(n, "tm_prom_server_progress", &n->prom_progress) ||
	    sym(n, "tm_prom_server_update_scraped", &n->prom_scraped) ||
	    sym(n, "tm_net_cmd_serve", &n->cmd_serve) ||
	    sym(n, "tm_scraper_start", &n->scraper_start) ||
	    sym(n, "tm_scraper_take", &n->scraper_take) ||
	    sym(n, "tm_scraper_stop", &n->scraper_stop) || sym(n, "tm_rw_start", &n->rw_start) ||
	    sym(n, "tm_rw_stop", &n->rw_stop)) {
		tm_net_unload(n);
		return -1;
	}
	return 0;
}

void tm_net_unload(struct tm_net *n)
{
	if (n->handle)
		dlclose(n->handle);
	memset(n, 0, sizeof(*n));
}
