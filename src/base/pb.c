/* protobuf-c's runtime loaded on first use (base/pb.h). */
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "base/dl.h"
#include "base/pb.h"
#include "base/banned.h"

/* The library's functions, of the types protobuf-c.h declares (under the
 * names base/pb_names.h maps them to). */
struct pb_fns {
	__typeof__(&protobuf_c_message_get_packed_size) get_packed_size;
	__typeof__(&protobuf_c_message_pack) pack;
	__typeof__(&protobuf_c_message_pack_to_buffer) pack_to_buffer;
	__typeof__(&protobuf_c_message_unpack) unpack;
	__typeof__(&protobuf_c_message_free_unpacked) free_unpacked;
};

/* The library's names (strings: pb_names.h maps only the identifiers). */
#define PB_FN(f, name)                                                                             \
	{                                                                                          \
		name, offsetof(struct pb_fns, f), sizeof(((struct pb_fns *)0)->f)                  \
	}

static int load(struct pb_fns *f)
{
	static const struct tm_dl_fn fns[] = {
	    PB_FN(get_packed_size, "protobuf_c_message_get_packed_size"),
	    PB_FN(pack, "protobuf_c_message_pack"),
	    PB_FN(pack_to_buffer, "protobuf_c_message_pack_to_buffer"),
	    PB_FN(unpack, "protobuf_c_message_unpack"),
	    PB_FN(free_unpacked, "protobuf_c_message_free_unpacked"),
	};
	return tm_dl_load(TM_PB_SONAME,
	                  "pprof heap profiles and remote write need it (Debian: libprotobuf-c1)",
	                  fns, sizeof(fns) / sizeof(fns[0]), f, sizeof(*f));
}

int tm_pb_ready(void)
{
	struct pb_fns f;
	return load(&f);
}

const char protobuf_c_empty_string[] = "";

size_t protobuf_c_message_get_packed_size(const ProtobufCMessage *message)
{
	struct pb_fns f;
	return load(&f) ? 0 : f.get_packed_size(message);
}

size_t protobuf_c_message_pack(const ProtobufCMessage *message, uint8_t *out)
{
	struct pb_fns f;
	return load(&f) ? 0 : f.pack(message, out);
}

size_t protobuf_c_message_pack_to_buffer(const ProtobufCMessage *message, ProtobufCBuffer *buffer)
{
	struct pb_fns f;
	return load(&f) ? 0 : f.pack_to_buffer(message, buffer);
}

ProtobufCMessage *protobuf_c_message_unpack(const ProtobufCMessageDescriptor *descriptor,
                                            ProtobufCAllocator *allocator, size_t len,
                                            const uint8_t *data)
{
	struct pb_fns f;
	return load(&f) ? NULL : f.unpack(descriptor, allocator, len, data);
}

void protobuf_c_message_free_unpacked(ProtobufCMessage *message, ProtobufCAllocator *allocator)
{
	struct pb_fns f;
	if (!load(&f))
		f.free_unpacked(message, allocator);
}
