// For `heap attach` tests: 4 threads replace strings in maps (new/delete
// through libstdc++'s malloc) for N rounds each while the main thread
// waits in join; prints a checksum, the same with or
// without an attach.  usage: heap_attach_mt ROUNDS [END]: with END, the
// threads go on replacing strings (outside the checksum) until the file END
// exists (at most 120 s), so a test finds them allocating however fast the
// machine is.
#include <cstdio>
#include <ctime>
#include <unistd.h>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#include <vector>

static unsigned long work(int id, long rounds)
{
	std::map<long, std::string> m;
	unsigned long sum = 0;
	for (long i = 0; i < rounds; i++) {
		auto &v = m[(i * 7 + id) % 3000];
		sum = sum * 31 + v.size();
		v = std::string(16 + (size_t)(i * 13 % 300), (char)('a' + id)); /* a new block */
	}
	return sum + m.size();
}

static void churn_until(const char *end)
{
	std::map<long, std::string> m;
	std::time_t give_up = std::time(nullptr) + 120;
	for (long i = 0; access(end, F_OK) != 0 && std::time(nullptr) < give_up; i++)
		for (long k = 0; k < 1000; k++, i++)
			m[i % 3000] = std::string(16 + (size_t)(i * 13 % 300), 'z');
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 100000;
	unsigned long sums[4] = {0, 0, 0, 0};
	std::vector<std::thread> ts;
	for (int t = 0; t < 4; t++)
		ts.emplace_back([&sums, t, rounds, argc, argv] {
			sums[t] = work(t, rounds);
			if (argc > 2)
				churn_until(argv[2]);
		});
	for (auto &t : ts)
		t.join();
	std::printf("checksum=%lu %lu %lu %lu\n", sums[0], sums[1], sums[2], sums[3]);
	return 0;
}
