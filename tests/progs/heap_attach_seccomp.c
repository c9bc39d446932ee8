/* For `heap attach` tests: installs a seccomp filter that allows every
 * syscall (Seccomp: 2 in its status), then sleeps SECONDS. */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/prctl.h>

int main(int argc, char **argv)
{
	struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_fprog prog = {.len = 1, .filter = allow};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 3;
	sleep(argc > 1 ? (unsigned)atoi(argv[1]) : 10);
	return 0;
}
