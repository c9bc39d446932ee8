/* The allocator registry (allocators.h): its lines as descriptors, looked up. */
#include <stdio.h>
#include <string.h>

#include "base/allocators.h"
#include "base/util.h"
#include "base/banned.h"

/* "" in the list is no library: NULL here. */
#define OR_NULL(s) (s[0] ? s : NULL)
#define TM_ALLOC_INFO(id, name, family, lib1, pkg1, lib2, pkg2, stats, exe, colour)                \
	[TM_ALLOC_##id] = {name,                                                                   \
	                   family,                                                                 \
	                   {OR_NULL(lib1), OR_NULL(lib2)},                                         \
	                   {OR_NULL(pkg1), OR_NULL(pkg2)},                                         \
	                   stats,                                                                  \
	                   OR_NULL(exe),                                                           \
	                   colour},
static const struct tm_alloc_info table[TM_ALLOC_COUNT] = {TM_ALLOCATOR_LIST(TM_ALLOC_INFO)};
#undef TM_ALLOC_INFO
#undef OR_NULL

/* the allocators with a library come after those without */
#define TM_ALLOC_LIB_CHECK(id, name, family, lib1, ...)                                            \
	_Static_assert((TM_ALLOC_##id >= TM_ALLOC_FIRST_LIB) == (sizeof(lib1) > 1), name           \
	               ": TM_ALLOC_FIRST_LIB parts the allocators with a library from the rest");
TM_ALLOCATOR_LIST(TM_ALLOC_LIB_CHECK)
#undef TM_ALLOC_LIB_CHECK

const struct tm_alloc_info *tm_alloc_info(enum tm_alloc a)
{
	return a < TM_ALLOC_COUNT ? &table[a] : NULL;
}

int tm_alloc_by_name(const char *name)
{
	for (int i = 0; i < TM_ALLOC_COUNT; i++)
		if (!strcmp(name, table[i].name))
			return i;
	return -1;
}

const char *tm_alloc_names(char *buf, size_t size, const char *sep_last)
{
	size_t n = 0;

	if (size)
		buf[0] = '\0';
	for (int i = 0; i < TM_ALLOC_COUNT && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
		                      i == 0                    ? ""
		                      : i == TM_ALLOC_COUNT - 1 ? sep_last
		                                                : ", ",
		                      table[i].name);
	return buf;
}

const char *tm_alloc_family_of_lib(const char *file_name, size_t len)
{
	for (int i = 0; i < TM_ALLOC_COUNT; i++) {
		size_t n = strlen(table[i].family);
		if (!table[i].lib[0])
			continue;
		if (len >= 3 + n && !memcmp(file_name, "lib", 3) &&
		    !memcmp(file_name + 3, table[i].family, n))
			return table[i].family;
	}
	return NULL;
}
