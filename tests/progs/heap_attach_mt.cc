// For `heap attach` tests: 4 threads replace strings in maps (new/delete
// through libstdc++'s malloc) for N rounds each while the main thread
// waits in join; prints a checksum, the same with or
// without an attach.  usage: heap_attach_mt ROUNDS
#include <cstdio>
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

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? std::atol(argv[1]) : 100000;
	unsigned long sums[4] = {0, 0, 0, 0};
	std::vector<std::thread> ts;
	for (int t = 0; t < 4; t++)
		ts.emplace_back([&sums, t, rounds] { sums[t] = work(t, rounds); });
	for (auto &t : ts)
		t.join();
	std::printf("checksum=%lu %lu %lu %lu\n", sums[0], sums[1], sums[2], sums[3]);
	return 0;
}
