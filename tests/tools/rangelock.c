// SPDX-License-Identifier: GPL-2.0
/*
 * A range lock over sectors: writers take [start, end) exclusive, readers
 * shared.  Each thread holds at most one range at a time, so there is no
 * deadlock; a small table scanned under one mutex is plenty for the few
 * dozen threads iover runs.
 */
#include "iover.h"

void rl_init(struct rangelock *rl)
{
	int i;

	pthread_mutex_init(&rl->lock, NULL);
	pthread_cond_init(&rl->cond, NULL);
	for (i = 0; i < RL_SLOTS; i++)
		rl->slot[i].used = false;
}

static bool rl_conflict(const struct rangelock *rl, uint64_t start,
			uint64_t end, bool excl)
{
	int i;

	for (i = 0; i < RL_SLOTS; i++) {
		if (!rl->slot[i].used || (!excl && !rl->slot[i].excl))
			continue;
		if (start < rl->slot[i].end && rl->slot[i].start < end)
			return true;
	}
	return false;
}

static int rl_free_slot(const struct rangelock *rl)
{
	int i;

	for (i = 0; i < RL_SLOTS; i++)
		if (!rl->slot[i].used)
			return i;
	return -1;
}

/* Returns the slot to hand to rl_unlock(). */
int rl_lock(struct rangelock *rl, uint64_t start, uint64_t end, bool excl)
{
	int slot;

	pthread_mutex_lock(&rl->lock);
	while (rl_conflict(rl, start, end, excl) ||
	       (slot = rl_free_slot(rl)) < 0)
		pthread_cond_wait(&rl->cond, &rl->lock);
	rl->slot[slot].start = start;
	rl->slot[slot].end = end;
	rl->slot[slot].excl = excl;
	rl->slot[slot].used = true;
	pthread_mutex_unlock(&rl->lock);
	return slot;
}

void rl_unlock(struct rangelock *rl, int slot)
{
	pthread_mutex_lock(&rl->lock);
	rl->slot[slot].used = false;
	pthread_cond_broadcast(&rl->cond);
	pthread_mutex_unlock(&rl->lock);
}
