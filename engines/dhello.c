/* nbrun — the data hello (see dhello.h). */
#include "dhello.h"

#include <sodium.h>
#include <string.h>

#define BODY_LEN (8 + NB_DHELLO_NONCE) /* what the tag covers: magic, flow, nonce */

static const uint32_t magics[NB_DH_KIND_N] = {
	0x4e424832u, /* "NBH2" hello */
	0x4e424332u, /* "NBC2" challenge */
	0x4e424532u, /* "NBE2" echo */
	0x4e424132u, /* "NBA2" ack */
	0x4e425232u, /* "NBR2" crr connection */
};

static void put_u32(unsigned char *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (24 - 8 * i));
}

static uint32_t get_u32(const unsigned char *b)
{
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

void nb_dhello_put(unsigned char out[NB_DHELLO_LEN], const struct nb_dhello *h,
		   const unsigned char key[NB_KEY_LEN])
{
	put_u32(out, magics[h->kind]);
	put_u32(out + 4, h->flow);
	memcpy(out + 8, h->nonce, NB_DHELLO_NONCE);
	crypto_auth(out + BODY_LEN, out, BODY_LEN, key);
}

bool nb_dhello_get(const unsigned char *buf, size_t len, enum nb_dhello_kind kind,
		   const unsigned char key[NB_KEY_LEN], struct nb_dhello *out)
{
	if (len != NB_DHELLO_LEN || get_u32(buf) != magics[kind] ||
	    crypto_auth_verify(buf + BODY_LEN, buf, BODY_LEN, key) != 0)
		return false;
	out->kind = kind;
	out->flow = get_u32(buf + 4);
	memcpy(out->nonce, buf + 8, NB_DHELLO_NONCE);
	return true;
}

bool nb_dhello_of_run(const unsigned char *buf, size_t len, const unsigned char key[NB_KEY_LEN])
{
	return len == NB_DHELLO_LEN && crypto_auth_verify(buf + BODY_LEN, buf, BODY_LEN, key) == 0;
}
