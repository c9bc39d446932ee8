// A C++ program (new/delete reach the shim through malloc): builds a map of
// strings and vectors and prints a checksum, the same with or without the shim.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

int main()
{
	std::map<std::string, std::vector<int>> m;
	for (int i = 0; i < 100000; i++) {
		auto &v = m["key" + std::to_string(i % 5000)];
		v.push_back(i);
		if (v.size() > 50)
			v.erase(v.begin(), v.begin() + 25);
	}
	auto owned = std::make_unique<std::string>(1 << 20, 'x');
	unsigned long sum = owned->size();
	for (auto &kv : m)
		for (int x : kv.second)
			sum = sum * 31 + (unsigned long)x + kv.first.size();
	std::printf("entries=%zu checksum=%lu\n", m.size(), sum);
	return 0;
}
