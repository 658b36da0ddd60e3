/* nbrun — epochs (see epoch.h). */
#include "epoch.h"

#include <sched.h>

static void slot_add(struct nb_flow *f, uint32_t ep, uint64_t n)
{
	uint32_t i = ep % NB_EPOCH_SLOTS;
	if (atomic_load_explicit(&f->ep_tag[i], memory_order_relaxed) != ep) {
		/* the slot's older epoch, ep - SLOTS or before, is settled already */
		atomic_store_explicit(&f->ep_count[i], 0, memory_order_relaxed);
		atomic_store_explicit(&f->ep_tag[i], ep, memory_order_relaxed);
	}
	atomic_store_explicit(&f->ep_count[i],
			      atomic_load_explicit(&f->ep_count[i], memory_order_relaxed) + n,
			      memory_order_relaxed);
}

void nb_epoch_sent(struct nb_flow *f, uint32_t ep, uint64_t n)
{
	slot_add(f, ep, n);
}

void nb_epoch_count(struct nb_flow *f, uint32_t ep, uint32_t cur)
{
	if ((uint64_t)ep + f->lag < cur || (uint64_t)ep + f->lag + 2 > (uint64_t)cur + NB_EPOCH_SLOTS)
		nb_count(f, NB_C_LATE, 1);
	else
		slot_add(f, ep, 1);
}

void nb_epoch_quiet(struct nb_flow *f)
{
	uint32_t b = atomic_load(&f->busy); /* seq_cst: after the tick's epoch store */
	if (!(b & 1))
		return;
	while (atomic_load(&f->busy) == b)
		sched_yield();
}

void nb_epoch_settle(struct nb_flow *f, uint32_t epoch)
{
	uint32_t below = f->sends ? epoch : epoch > f->lag ? epoch - f->lag : 0;
	uint64_t add = 0;
	for (; f->unsettled < below; f->unsettled++) {
		uint32_t i = f->unsettled % NB_EPOCH_SLOTS;
		if (atomic_load_explicit(&f->ep_tag[i], memory_order_relaxed) == f->unsettled)
			add += atomic_load_explicit(&f->ep_count[i], memory_order_relaxed);
	}
	nb_count(f, f->sends ? NB_C_TX_SETTLED : NB_C_RX_SETTLED, add);
}
