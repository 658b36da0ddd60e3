/* nbrun — how a NIC's interrupts spread over CPUs: its IRQs are the /proc/interrupts lines
 * named after the interface (or its device, "virtio0-input.0") or listed in the device's
 * msi_irqs; the CPUs that counted them and their affinity lists say where they run. */
#include "env.h"
#include "env_read.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define G "iface"
#define MAX_IRQS 8192

struct irq_scan {
	char names[2][IF_NAMESIZE + 64];  /* the interface, and its device's name ("" if none) */
	bool msi[MAX_IRQS];               /* from device/msi_irqs */
	bool irqs[MAX_IRQS];              /* matched */
	bool handled[NB_ENV_MAX_CPUS];    /* CPUs whose count is non-zero */
	int cpu_col[NB_ENV_MAX_CPUS];     /* CPU number of each count column */
	int ncols, count;
};

/* A description word names the device when it is the name itself or "name-..." */
static bool names_device(const struct irq_scan *s, const char *desc)
{
	for (int i = 0; i < 2; i++) {
		size_t n = strlen(s->names[i]);
		for (const char *w = desc; n && (w = strstr(w, s->names[i])); w += n)
			if ((w == desc || w[-1] == ' ' || w[-1] == '\t') &&
			    (!w[n] || w[n] == '-' || w[n] == ' ' || w[n] == '\n' || w[n] == '@'))
				return true;
	}
	return false;
}

static void header(struct irq_scan *s, const char *line)
{
	s->ncols = 0;
	for (const char *p = strstr(line, "CPU"); p && s->ncols < NB_ENV_MAX_CPUS; p = strstr(p + 3, "CPU"))
		s->cpu_col[s->ncols++] = atoi(p + 3);
}

/* One "N: c0 c1 ... desc" line. */
static void irq_line(struct irq_scan *s, char *line)
{
	char *end;
	long irq = strtol(line, &end, 10);
	if (end == line || *end != ':' || irq < 0 || irq >= MAX_IRQS)
		return;
	char *p = end + 1;
	unsigned long long counts[NB_ENV_MAX_CPUS];
	int c;
	for (c = 0; c < s->ncols; c++) {
		counts[c] = strtoull(p, &end, 10);
		if (end == p)
			break;
		p = end;
	}
	if (!s->msi[irq] && !names_device(s, p))
		return;
	s->irqs[irq] = true;
	s->count++;
	for (int i = 0; i < c; i++)
		if (counts[i] && s->cpu_col[i] >= 0 && s->cpu_col[i] < NB_ENV_MAX_CPUS)
			s->handled[s->cpu_col[i]] = true;
}

static void device_names(struct irq_scan *s, const char *root, const char *ifname)
{
	char rel[128], path[512], target[PATH_MAX];
	long nums[256];
	int err;
	snprintf(s->names[0], sizeof(s->names[0]), "%s", ifname);
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device", ifname);
	nb_env_path(path, sizeof(path), root, rel);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		snprintf(s->names[1], sizeof(s->names[1]), "%s", basename(target));
	}
	snprintf(rel, sizeof(rel), "sys/class/net/%s/device/msi_irqs", ifname);
	int k = nb_env_list_numbered(root, rel, "", nums, 256, &err);
	for (int i = 0; i < k; i++)
		if (nums[i] < MAX_IRQS)
			s->msi[nums[i]] = true;
}

/* Union of the affinity lists of the matched IRQs (effective first, configured otherwise). */
static void affinity(const struct irq_scan *s, const char *root, bool *cpus)
{
	static bool one[NB_ENV_MAX_CPUS];
	char rel[96], v[1024];
	for (int irq = 0; irq < MAX_IRQS; irq++) {
		if (!s->irqs[irq])
			continue;
		snprintf(rel, sizeof(rel), "proc/irq/%d/effective_affinity_list", irq);
		if (nb_env_read(root, rel, v, sizeof(v)) || !v[0]) {
			snprintf(rel, sizeof(rel), "proc/irq/%d/smp_affinity_list", irq);
			if (nb_env_read(root, rel, v, sizeof(v)))
				continue;
		}
		if (nb_cpulist_parse(v, one, NB_ENV_MAX_CPUS) > 0)
			for (int c = 0; c < NB_ENV_MAX_CPUS; c++)
				cpus[c] |= one[c];
	}
}

static bool irq_facts(const struct irq_scan *s, const char *root, struct nb_facts *out)
{
	static bool aff[NB_ENV_MAX_CPUS];
	char list[1024];
	memset(aff, 0, sizeof(aff));
	nb_env_cpulist(list, sizeof(list), s->irqs, MAX_IRQS);
	bool ok = nb_facts_set(out, G, "irq.count", "%d", s->count) &&
		  nb_facts_set(out, G, "irq.numbers", "%s", list);
	nb_env_cpulist(list, sizeof(list), s->handled, NB_ENV_MAX_CPUS);
	ok = ok && (list[0] ? nb_facts_set(out, G, "irq.cpus", "%s", list)
			    : nb_facts_unknown(out, G, "irq.cpus", "no interrupt counted yet"));
	affinity(s, root, aff);
	nb_env_cpulist(list, sizeof(list), aff, NB_ENV_MAX_CPUS);
	return ok && (list[0] ? nb_facts_set(out, G, "irq.affinity", "%s", list)
			      : nb_facts_unknown(out, G, "irq.affinity", "no readable /proc/irq/N affinity"));
}

static bool irq_unknown(struct nb_facts *out, const char *why)
{
	return nb_facts_unknown(out, G, "irq.count", "%s", why) &&
	       nb_facts_unknown(out, G, "irq.numbers", "%s", why) &&
	       nb_facts_unknown(out, G, "irq.cpus", "%s", why) &&
	       nb_facts_unknown(out, G, "irq.affinity", "%s", why);
}

bool nb_env_irqs(const char *root, const char *ifname, struct nb_facts *out)
{
	int err;
	char why[256];
	char *text = nb_env_slurp(root, "proc/interrupts", &err);
	struct irq_scan *s = text ? calloc(1, sizeof(*s)) : NULL;
	if (!s) {
		free(text);
		nb_env_reason(why, sizeof(why), text ? ENOMEM : err, "proc/interrupts", NULL);
		return irq_unknown(out, why);
	}
	device_names(s, root, ifname);
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!s->ncols)
			header(s, line);
		else
			irq_line(s, line);
	}
	bool ok;
	if (s->count)
		ok = irq_facts(s, root, out);
	else {
		snprintf(why, sizeof(why), "no IRQ of %s in /proc/interrupts (virtual device?)", ifname);
		ok = irq_unknown(out, why);
	}
	free(s);
	free(text);
	return ok;
}
