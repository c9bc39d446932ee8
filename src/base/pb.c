/* protobuf-c's runtime loaded on first use (base/pb.h). */
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "base/dl.h"
#include "base/pb.h"
#include "base/banned.h"

/* The library's functions, of the types protobuf-c.h declares.  Each
 * member is named as the library names the function: pb_names.h maps the
 * identifier (to the wrapper's name, a member here, not a call), while
 * TM_DL_FN's string keeps the name dlsym looks up. */
struct pb_fns {
	__typeof__(&protobuf_c_message_get_packed_size) protobuf_c_message_get_packed_size;
	__typeof__(&protobuf_c_message_pack) protobuf_c_message_pack;
	__typeof__(&protobuf_c_message_pack_to_buffer) protobuf_c_message_pack_to_buffer;
	__typeof__(&protobuf_c_message_unpack) protobuf_c_message_unpack;
	__typeof__(&protobuf_c_message_free_unpacked) protobuf_c_message_free_unpacked;
};

static int load(struct pb_fns *f)
{
	/* clang-format off */
	static const struct tm_dl_fn fns[] = {
	    TM_DL_FN(struct pb_fns, protobuf_c_message_get_packed_size)
	    TM_DL_FN(struct pb_fns, protobuf_c_message_pack)
	    TM_DL_FN(struct pb_fns, protobuf_c_message_pack_to_buffer)
	    TM_DL_FN(struct pb_fns, protobuf_c_message_unpack)
	    TM_DL_FN(struct pb_fns, protobuf_c_message_free_unpacked)
	};
	/* clang-format on */
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
	return load(&f) ? 0 : f.protobuf_c_message_get_packed_size(message);
}

size_t protobuf_c_message_pack(const ProtobufCMessage *message, uint8_t *out)
{
	struct pb_fns f;
	return load(&f) ? 0 : f.protobuf_c_message_pack(message, out);
}

size_t protobuf_c_message_pack_to_buffer(const ProtobufCMessage *message, ProtobufCBuffer *buffer)
{
	struct pb_fns f;
	return load(&f) ? 0 : f.protobuf_c_message_pack_to_buffer(message, buffer);
}

ProtobufCMessage *protobuf_c_message_unpack(const ProtobufCMessageDescriptor *descriptor,
                                            ProtobufCAllocator *allocator, size_t len,
                                            const uint8_t *data)
{
	struct pb_fns f;
	return load(&f) ? NULL : f.protobuf_c_message_unpack(descriptor, allocator, len, data);
}

void protobuf_c_message_free_unpacked(ProtobufCMessage *message, ProtobufCAllocator *allocator)
{
	struct pb_fns f;
	if (!load(&f))
		f.protobuf_c_message_free_unpacked(message, allocator);
}
