/* nbrun — one test on several paths at once (see multipath.h). */
#include "multipath.h"

#include <stdio.h>
#include <string.h>

static void *path_main(void *arg)
{
	struct nb_path_test *p = arg;
	if (p->src)
		p->outcome = nb_client_test_relay(p->src, p->client, p->su, p->group, &p->sink, &p->res,
						  &p->err);
	else
		p->outcome = nb_client_test_path(p->client, p->su, p->group, &p->sink, &p->res, &p->err);
	return NULL;
}

/* A path that never ran: failed, and gone from the meeting points. */
static void not_started(struct nb_path_test *p, const char *why)
{
	memset(&p->res, 0, sizeof(p->res));
	nb_metrics_clear(&p->res.m);
	snprintf(p->res.error, sizeof(p->res.error), "%s", why);
	p->outcome = NB_OUT_CASE_FAILED;
	nb_pathsync_leave(p->group);
}

void nb_paths_test(struct nb_path_test *paths, size_t n, const struct nb_msg_setup *su)
{
	struct nb_pathsync group;
	bool grouped = nb_pathsync_init(&group, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		struct nb_path_test *p = &paths[i];
		p->su = su;
		p->group = &group;
		p->err = (struct nb_error){ { 0 } };
		p->started = false;
		if (!grouped) {
			p->group = NULL;
			not_started(p, "cannot start the paths together (out of resources)");
			continue;
		}
		int rc = pthread_create(&p->thread, NULL, path_main, p);
		p->started = rc == 0;
		if (rc != 0)
			not_started(p, strerror(rc));
	}
	for (size_t i = 0; i < n; i++)
		if (paths[i].started)
			pthread_join(paths[i].thread, NULL);
	if (grouped)
		nb_pathsync_destroy(&group);
}
