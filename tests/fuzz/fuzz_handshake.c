/* Fuzz harness: the control handshake (auth.c) as either end meets a hostile peer. The first
 * byte picks the end (bit 0: agent or client) and whether it holds a secret (bit 1); the rest
 * is everything the peer sends, then it hangs up. The end under test runs against a socket
 * pair exactly as against a TCP connection; once its handshake completes, it reads what follows
 * as sealed frames (ctl.h) until one fails. */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "ctl.h"
#include "fuzz.h"

#define MAX_INPUT 65536 /* the socket pair's buffer takes it whole */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	if (size < 1 || size > MAX_INPUT || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return 0;
	struct nb_secret secret = { .set = (data[0] & 2) != 0 };
	memset(secret.key, 0x42, sizeof(secret.key));
	ssize_t w = write(sv[0], data + 1, size - 1);
	shutdown(sv[0], SHUT_WR);
	struct nb_auth out;
	struct nb_error err;
	struct nb_ctl c;
	nb_ctl_init(&c, sv[1]);
	bool ok = false;
	if (w == (ssize_t)size - 1) {
		if (data[0] & 1)
			ok = nb_auth_agent(&c, &secret, nb_ctl_now_ms() + 1000, &out, &err) == NB_AUTH_OK;
		else
			ok = nb_auth_client(&c, &secret, 1000, "fuzz", &out, &err);
	}
	struct nb_msg m;
	for (int i = 0; ok && i < 4 && nb_ctl_recv(&c, &m, 100, &err) == 1; i++)
		nb_msg_free(&m);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
