/* `tidemark serve`: the server collectors push to, the panel, /metrics. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/term.h"
#include "base/util.h"
#include "cmd/cmds.h"
#include "serve/http/auth.h"
#include "serve/client/push.h"
#include "serve/http/server.h"
#include "store/store.h"
#include "base/banned.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void usage_text(FILE *f)
{
	fputs("usage: tidemark serve [--listen HOST:PORT] [--db PATH] [--public-read]\n"
	      "                      [--max-body SIZE] [--max-rate ROWS_PER_SEC]\n"
	      "                      [--request-timeout DURATION]\n"
	      "       tidemark serve token add [--read] NAME [--token-file F] [--db PATH]\n"
	      "       tidemark serve token remove [--read] NAME [--db PATH]\n"
	      "       tidemark serve token list [--db PATH]\n"
	      "       tidemark serve push --token-file F [--db LOCAL] URL [RUN...]\n"
	      "\n"
	      "Collects runs pushed by `tidemark record --push`, serves the panel at /\n"
	      "and Prometheus metrics at /metrics.\n"
	      "\n"
	      "  --listen HOST:PORT   address (default 127.0.0.1:7070; port 0 picks one)\n"
	      "  --db PATH            store file (default $" TM_SERVER_DB_ENV
	      " or " TM_SERVER_DB_DEFAULT ")\n"
	      "  --public-read        panel, API and /metrics readable without a read token\n"
	      "  --max-body SIZE      largest request body accepted (default 8M)\n"
	      "  --max-rate N         rows/s accepted per machine, averaged (default 1000):\n"
	      "                       samples, events, progress points, marks, scraped values\n"
	      "  --request-timeout D  a request must arrive whole within D (default 30s): a\n"
	      "                       client trickling bytes is cut off; past 200\n"
	      "                       connections a new one evicts the oldest still sending\n"
	      "\n"
	      "A write token belongs to one machine: every run pushed with it is filed under\n"
	      "the token's name.  Tokens are printed once and stored hashed.\n"
	      "`serve push` sends runs of a local store (all, or the RUN ids given), e.g.\n"
	      "ones recorded while the server was unreachable; what it has is skipped.\n"
	      "Its --db is the local store (default $" TM_DB_ENV " or " TM_DB_DEFAULT ").\n"
	      "\n"
	      "examples:\n"
	      "  tidemark serve token add pi-home          # prints the pi's write token\n"
	      "  tidemark serve token add pi-home --token-file pi.token  # into a 0600 file\n"
	      "  tidemark serve token add --read laptop    # a token for the panel\n"
	      "  tidemark serve --listen 0.0.0.0:7070 --db /var/lib/tidemark/server.db\n"
	      "  tidemark record --push http://server:7070 --token-file pi.token -- ./job\n"
	      "  tidemark serve push --token-file pi.token --db tidemark.db http://server:7070\n"
	      "  open 'http://127.0.0.1:7070/#token=TOKEN'\n",
	      f);
}

/* The usage, fitted to the terminal (base/term.h). */
static void usage(FILE *f)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m) {
		usage_text(f);
		return;
	}
	usage_text(m);
	fclose(m);
	tm_help_write(f, buf);
	free(buf);
}

static int print_token(void *ctx, const char *name, const char *kind, int64_t created)
{
	(void)ctx;
	printf("%-5s %-32s created %lld\n", kind, name, (long long)(created / 1000000));
	return 0;
}

/* Writes TOK and a newline to a new file PATH, mode 0600 (a token is a
 * secret: `> pi.token` would make it 0644).  Refuses an existing file or a
 * link.  0, or -1 after tm_error. */
static int write_token_file(const char *path, const char *tok)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	char line[TM_TOKEN_LEN + 2];
	int n = snprintf(line, sizeof(line), "%s\n", tok);

	if (fd < 0)
		return tm_error("cannot create token file '%s': %s", path, strerror(errno));
	if (write(fd, line, (size_t)n) != n || close(fd) < 0) {
		int e = errno;
		unlink(path);
		return tm_error("cannot write token file '%s': %s", path, strerror(e));
	}
	return 0;
}

static int token_cmd(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	static const struct option opts[] = {{"read", no_argument, NULL, 'r'},
	                                     {"db", required_argument, NULL, 'd'},
	                                     {"token-file", required_argument, NULL, 't'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {0}};
	const char *kind = "write", *verb, *token_file = NULL;
	struct tm_store *st;
	int c, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'r')
			kind = "read";
		else if (c == 'd')
			tm_cmd_set_db(ctx, optarg);
		else if (c == 't')
			token_file = optarg;
		else if (c == 'h')
			return usage(stdout), 0;
		else
			return usage(stderr), 2;
	}
	verb = optind < argc ? argv[optind] : "";
	bool list = !strcmp(verb, "list");
	if (!(list && optind + 1 == argc) &&
	    !((!strcmp(verb, "add") || !strcmp(verb, "remove")) && optind + 2 == argc)) {
		fprintf(stderr, "tidemark serve token: want 'add NAME', 'remove NAME' or 'list'\n");
		return 2;
	}
	if (token_file && strcmp(verb, "add")) {
		fprintf(stderr, "tidemark serve token: --token-file goes with 'add'\n");
		return 2;
	}
	if (!list && !tm_name_valid(argv[optind + 1])) {
		fprintf(stderr,
		        "tidemark serve token: invalid name '%s' (1-64 of A-Z a-z 0-9 . _ -)\n",
		        argv[optind + 1]);
		return 2;
	}
	if (!(st = tm_cmd_store(ctx, TM_CMD_WRITE)) || tm_auth_init(st) < 0)
		return 1;
	if (list) {
		rc = tm_token_each(st, print_token, NULL) < 0;
	} else if (!strcmp(verb, "add")) {
		char tok[TM_TOKEN_LEN + 1];
		/* the file first: a token that cannot be written is not added */
		if (token_file && access(token_file, F_OK) == 0)
			return tm_error("token file '%s' exists: not overwritten", token_file), 1;
		rc = tm_token_add(st, argv[optind + 1], kind, tok) < 0;
		if (!rc && token_file && write_token_file(token_file, tok) < 0) {
			if (tm_token_remove(st, argv[optind + 1], kind) != 0)
				tm_warn(
				    "token '%s' stays in the store without its file: 'serve token "
				    "remove %s'",
				    argv[optind + 1], argv[optind + 1]);
			rc = 1;
		} else if (!rc && !token_file) {
			printf("%s\n", tok);
		}
	} else {
		int r = tm_token_remove(st, argv[optind + 1], kind);
		if (r == 1)
			fprintf(stderr, "tidemark serve token: no %s token '%s'\n", kind,
			        argv[optind + 1]);
		rc = r != 0;
	}
	return rc;
}

static int push_cmd(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	static const struct option opts[] = {{"token-file", required_argument, NULL, 't'},
	                                     {"db", required_argument, NULL, 'd'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {0}};
	const char *url, *token_file = NULL;
	struct tm_store *st;
	int64_t *ids;
	int ch, n = 0, sent = 0, failed = 0, rc;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (ch == 't')
			token_file = optarg;
		else if (ch == 'd')
			tm_cmd_set_db(ctx, optarg);
		else if (ch == 'h')
			return usage(stdout), 0;
		else
			return usage(stderr), 2;
	}
	if (!token_file || optind >= argc) {
		fprintf(stderr, "tidemark serve push: want --token-file F and a server URL\n");
		return 2;
	}
	url = argv[optind++];
	if (!(ids = calloc((size_t)argc, sizeof(*ids))))
		return tm_error("out of memory"), 1;
	for (int i = optind; i < argc; i++) {
		if (tm_parse_int64(argv[i], &ids[n]) < 0 || ids[n] <= 0) {
			fprintf(stderr, "tidemark serve push: '%s' is not a run id\n", argv[i]);
			free(ids);
			return 2;
		}
		n++;
	}
	st = tm_cmd_store(ctx, TM_CMD_READ);
	rc = st ? tm_push_runs(st, url, token_file, ids, n, &sent, &failed) : -1;
	free(ids);
	if (!rc)
		printf("%d run(s) sent, %d incomplete\n", sent, failed);
	return rc || failed ? 1 : 0;
}

static int parse_opts(int argc, char **argv, struct tm_server_opts *o, struct tm_cmd_ctx *ctx)
{
	static const struct option opts[] = {{"listen", required_argument, NULL, 'l'},
	                                     {"db", required_argument, NULL, 'd'},
	                                     {"public-read", no_argument, NULL, 'p'},
	                                     {"max-body", required_argument, NULL, 'b'},
	                                     {"max-rate", required_argument, NULL, 'r'},
	                                     {"request-timeout", required_argument, NULL, 't'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {0}};
	int64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			o->listen = optarg;
			break;
		case 'd':
			tm_cmd_set_db(ctx, optarg);
			break;
		case 'p':
			o->public_read = true;
			break;
		case 'b':
			if (tm_parse_size(optarg, &v) < 0 || v < 1024 || v > (1 << 30)) {
				fprintf(stderr, "tidemark serve: --max-body wants 1K..1G\n");
				return 2;
			}
			o->max_body_bytes = (size_t)v;
			break;
		case 'r':
			if (tm_parse_int64(optarg, &v) < 0 || v < 1 || v > 10000000) {
				fprintf(stderr, "tidemark serve: --max-rate wants 1..10000000\n");
				return 2;
			}
			o->max_samples_per_sec = v;
			break;
		case 't':
			if (tm_parse_duration(optarg, &v) < 0 || v < 100000 ||
			    v > 3600 * 1000000LL) {
				fprintf(stderr,
				        "tidemark serve: --request-timeout wants 100ms..1h\n");
				return 2;
			}
			o->request_timeout_usec = v;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "tidemark serve: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

/* The command table (main.c) gives "serve push" the recorder's store to
 * read, and "serve" and "serve token" the server's store to write. */
int tm_net_cmd_serve(int argc, char **argv, struct tm_cmd_ctx *ctx)
{
	struct tm_server_opts o;
	struct sockaddr_in addr;
	struct tm_store *st;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "token"))
		return token_cmd(argc - 1, argv + 1, ctx);
	if (argc > 1 && !strcmp(argv[1], "push"))
		return push_cmd(argc - 1, argv + 1, ctx);
	tm_server_opts_init(&o);
	rc = parse_opts(argc, argv, &o, ctx);
	if (rc >= 0)
		return rc;
	if (tm_parse_listen(o.listen, &addr) < 0)
		return 2;
	if (!(st = tm_cmd_store(ctx, TM_CMD_WRITE)))
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	return tm_server_run(st, &o, &stop_flag) < 0 ? 1 : 0;
}
