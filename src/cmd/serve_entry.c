/* tidemark serve: the command lives in libtidemark-net.so (see netlib.h). */
#include "cmd/cmds.h"
#include "record/netlib.h"
#include "base/banned.h"

int cmd_serve(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_net net;
	int rc;

	if (tm_net_load(&net))
		return 1;
	rc = net.cmd_serve(argc, argv, ctx);
	tm_net_unload(&net);
	return rc;
}
