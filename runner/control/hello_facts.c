#include "hello_facts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "text.h"

struct kv_fill {
	struct nb_msg_facts *f;
	uint32_t cap;
};

static void put_kv(void *ctx, const char *k, const char *v)
{
	struct kv_fill *x = ctx;
	if (x->f->nkv >= x->cap)
		return;
	struct nb_kv *kv = &x->f->kv[x->f->nkv++];
	nb_text_sanitize(kv->k, sizeof(kv->k), k);
	nb_text_sanitize(kv->v, sizeof(kv->v), v);
}

void nb_hello_facts_fill(struct nb_msg_facts *f, bool collect, const struct sockaddr_storage *peer,
			 socklen_t len)
{
	struct nb_facts facts;
	nb_facts_init(&facts);
	if (collect)
		nb_env_collect("/", (const struct sockaddr *)peer, len, &facts);
	nb_env_add_nbrun(&facts, "one thread per flow, or per block of flows (threads)", "not pinned");
	f->kv = calloc(facts.n ? facts.n : 1, sizeof(*f->kv));
	struct kv_fill x = { .f = f, .cap = f->kv ? (uint32_t)(facts.n < NB_KV_MAX ? facts.n : NB_KV_MAX) : 0 };
	f->nkv = 0;
	nb_facts_flatten(&facts, put_kv, &x);
	nb_facts_free(&facts);
}

void nb_hello_facts_free(struct nb_msg_facts *f)
{
	free(f->kv);
	f->kv = NULL;
	f->nkv = 0;
}

void nb_hello_facts_read(const struct nb_msg_facts *f, struct nb_facts *out)
{
	for (uint32_t i = 0; i < f->nkv; i++)
		nb_facts_unflatten(out, f->kv[i].k, f->kv[i].v);
}
