/*
 * protobuf-c's runtime names, mapped to base/pb.c's: every file is compiled
 * with this header included first (the Makefile's PKG_CFLAGS), so that the
 * generated code (build/gen/NAME.pb-c.c) and its callers call the functions
 * that load libprotobuf-c when first used, and the executable names
 * nothing of it (base/pb.h).  A runtime function the generated code calls
 * and this list lacks is an undefined symbol when the tool links.
 */
#ifndef TM_BASE_PB_NAMES_H
#define TM_BASE_PB_NAMES_H

#define protobuf_c_empty_string            tm_pb_empty_string
#define protobuf_c_message_get_packed_size tm_pb_message_get_packed_size
#define protobuf_c_message_pack            tm_pb_message_pack
#define protobuf_c_message_pack_to_buffer  tm_pb_message_pack_to_buffer
#define protobuf_c_message_unpack          tm_pb_message_unpack
#define protobuf_c_message_free_unpacked   tm_pb_message_free_unpacked

#endif
