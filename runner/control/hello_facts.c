#include "hello_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"

struct kv_fill {
	struct nb_msg_hello *h;
	uint32_t cap;
};

static void put_kv(void *ctx, const char *k, const char *v)
{
	struct kv_fill *f = ctx;
	if (f->h->nkv >= f->cap)
		return;
	struct nb_kv *kv = &f->h->kv[f->h->nkv++];
	snprintf(kv->k, sizeof(kv->k), "%s", k);
	snprintf(kv->v, sizeof(kv->v), "%s", v);
}

void nb_hello_facts_fill(struct nb_msg_hello *h, bool collect, const struct sockaddr_storage *peer,
			 socklen_t len)
{
	struct nb_facts facts;
	nb_facts_init(&facts);
	if (collect)
		nb_env_collect("/", (const struct sockaddr *)peer, len, &facts);
	nb_env_add_nbrun(&facts, "one thread per flow", "not pinned");
	h->kv = calloc(facts.n ? facts.n : 1, sizeof(*h->kv));
	struct kv_fill f = { .h = h, .cap = h->kv ? (uint32_t)(facts.n < NB_KV_MAX ? facts.n : NB_KV_MAX) : 0 };
	h->nkv = 0;
	nb_facts_flatten(&facts, put_kv, &f);
	nb_facts_free(&facts);
}

void nb_hello_facts_free(struct nb_msg_hello *h)
{
	free(h->kv);
	h->kv = NULL;
	h->nkv = 0;
}

void nb_hello_facts_read(const struct nb_msg_hello *h, struct nb_facts *out)
{
	for (uint32_t i = 0; i < h->nkv; i++)
		nb_facts_unflatten(out, h->kv[i].k, h->kv[i].v);
}
