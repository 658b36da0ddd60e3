/* Fuzz harness: the control protocol's decoder (proto.c). Any bytes are a frame body; what
 * decodes must encode back to exactly those bytes (one encoding per message), and a frame's
 * length prefix is checked as nb_ctl_recv checks it. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "proto.h"

static void must(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t len;
	if (size >= 4)
		(void)nb_frame_len(data, &len, NULL);
	struct nb_msg m;
	struct nb_error err;
	if (!nb_msg_decode(data, size, &m, &err))
		return 0;
	struct nb_buf b = { 0 };
	must(nb_msg_encode(&m, &b, &err));
	must(b.len == size + 4 && memcmp(b.p + 4, data, size) == 0);
	struct nb_msg again;
	must(nb_msg_decode(b.p + 4, b.len - 4, &again, &err));
	must(again.type == m.type);
	nb_msg_free(&again);
	nb_msg_free(&m);
	nb_buf_free(&b);
	return 0;
}
