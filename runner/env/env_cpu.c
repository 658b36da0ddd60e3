/* nbrun — CPU facts: model, topology, NUMA nodes, cpufreq, SMT, load. */
#include "env.h"
#include "env_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G "cpu"
#define NO_CPUFREQ "not exposed: no cpufreq in this VM"

/* Value of the first "key<tabs>: value" line of cpuinfo, into buf; false when absent. */
static bool cpuinfo_field(const char *s, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (strncmp(l, key, klen) || (l[klen] != ' ' && l[klen] != '\t' && l[klen] != ':'))
			continue;
		const char *v = strchr(l, ':');
		const char *nl = strchr(l, '\n');
		if (!v || (nl && v > nl))
			continue;
		v += 1 + (v[1] == ' ');
		snprintf(buf, len, "%.*s", (int)(nl ? nl - v : (long)strlen(v)), v);
		return true;
	}
	return false;
}

/* Sockets, cores and threads from the "physical id" / "core id" lines of each processor. */
static bool topology(const char *s, struct nb_facts *out)
{
	static bool pkg[1024], core[1024 * 64];
	memset(pkg, 0, sizeof(pkg));
	memset(core, 0, sizeof(core));
	int threads = 0, sockets = 0, cores = 0;
	long phys = -1;
	for (const char *l = s; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		if (!strncmp(l, "processor", 9))
			threads++;
		else if (!strncmp(l, "physical id", 11) && strchr(l, ':'))
			phys = strtol(strchr(l, ':') + 1, NULL, 10);
		else if (!strncmp(l, "core id", 7) && strchr(l, ':') && phys >= 0 && phys < 1024) {
			long c = strtol(strchr(l, ':') + 1, NULL, 10);
			if (c < 0 || c >= 64)
				continue;
			sockets += !pkg[phys];
			pkg[phys] = true;
			cores += !core[phys * 64 + c];
			core[phys * 64 + c] = true;
		}
	}
	bool ok = threads ? nb_facts_set(out, G, "threads", "%d", threads)
			  : nb_facts_unknown(out, G, "threads", "no processor lines in /proc/cpuinfo");
	if (!sockets)
		return ok &&
		       nb_facts_unknown(out, G, "sockets", "no physical id in /proc/cpuinfo") &&
		       nb_facts_unknown(out, G, "cores", "no core id in /proc/cpuinfo");
	return ok && nb_facts_set(out, G, "sockets", "%d", sockets) &&
	       nb_facts_set(out, G, "cores", "%d", cores);
}

static bool cpuinfo(const char *root, struct nb_facts *out)
{
	int err;
	char why[256], model[256];
	char *s = nb_env_slurp(root, "proc/cpuinfo", &err);
	if (!s) {
		nb_env_reason(why, sizeof(why), err, "proc/cpuinfo", NULL);
		return nb_facts_unknown(out, G, "model", "%s", why) &&
		       nb_facts_unknown(out, G, "threads", "%s", why) &&
		       nb_facts_unknown(out, G, "sockets", "%s", why) &&
		       nb_facts_unknown(out, G, "cores", "%s", why);
	}
	bool ok;
	if (cpuinfo_field(s, "model name", model, sizeof(model)) ||
	    cpuinfo_field(s, "Processor", model, sizeof(model)) ||
	    cpuinfo_field(s, "cpu model", model, sizeof(model)))
		ok = nb_facts_set(out, G, "model", "%s", model);
	else
		ok = nb_facts_unknown(out, G, "model", "no model name in /proc/cpuinfo");
	ok = ok && topology(s, out);
	free(s);
	return ok;
}

static bool online(const char *root, struct nb_facts *out)
{
	char v[256], why[256];
	const char *rel = "sys/devices/system/cpu/online";
	int err = nb_env_read(root, rel, v, sizeof(v));
	int n = err ? -1 : nb_cpulist_parse(v, NULL, NB_ENV_MAX_CPUS);
	if (err || n < 0) {
		if (err)
			nb_env_reason(why, sizeof(why), err, rel, NULL);
		else
			snprintf(why, sizeof(why), "malformed /%s: %.100s", rel, v);
		return nb_facts_unknown(out, G, "online", "%s", why) &&
		       nb_facts_unknown(out, G, "online_count", "%s", why);
	}
	return nb_facts_set(out, G, "online", "%s", v) && nb_facts_set(out, G, "online_count", "%d", n);
}

static bool numa(const char *root, struct nb_facts *out)
{
	static bool nodes[1024];
	char v[256], why[256], key[48], rel[96];
	const char *nrel = "sys/devices/system/node/online";
	int err = nb_env_read(root, nrel, v, sizeof(v));
	if (err) {
		nb_env_reason(why, sizeof(why), err, nrel,
			      "not exposed: no /sys/devices/system/node (kernel without NUMA)");
		return nb_facts_unknown(out, G, "numa.nodes", "%s", why);
	}
	if (nb_cpulist_parse(v, nodes, 1024) < 0)
		return nb_facts_unknown(out, G, "numa.nodes", "malformed /%s: %s", nrel, v);
	bool ok = nb_facts_set(out, G, "numa.nodes", "%s", v);
	for (int n = 0; ok && n < 1024; n++) {
		if (!nodes[n])
			continue;
		snprintf(key, sizeof(key), "numa.node%d.cpus", n);
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/cpulist", n);
		ok = nb_env_file_fact(out, root, G, key, rel, NULL);
	}
	return ok;
}

/* One kHz file of a cpufreq policy, as MHz. */
static bool freq_fact(const char *root, long pol, const char *file, const char *name,
		      struct nb_facts *out)
{
	char rel[128], key[48], v[64], why[256];
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%ld/%s", pol, file);
	snprintf(key, sizeof(key), "cpufreq.policy%ld.%s", pol, name);
	int err = nb_env_read(root, rel, v, sizeof(v));
	if (err) {
		nb_env_reason(why, sizeof(why), err, rel, NULL);
		return nb_facts_unknown(out, G, key, "%s", why);
	}
	return nb_facts_set(out, G, key, "%ld MHz", strtol(v, NULL, 10) / 1000);
}

/* Policy facts; the governor is appended to govs when it is new. */
static bool policy(const char *root, long pol, char *govs, size_t glen, struct nb_facts *out)
{
	char rel[128], key[48];
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%ld/affected_cpus", pol);
	snprintf(key, sizeof(key), "cpufreq.policy%ld.cpus", pol);
	bool ok = nb_env_file_fact(out, root, G, key, rel, NULL);
	snprintf(rel, sizeof(rel), "sys/devices/system/cpu/cpufreq/policy%ld/scaling_governor", pol);
	snprintf(key, sizeof(key), "cpufreq.policy%ld.governor", pol);
	ok = ok && nb_env_file_fact(out, root, G, key, rel, NULL);
	const char *gov = nb_facts_value(out, G, key);
	if (gov) {
		size_t n = strlen(govs), g = strlen(gov);
		const char *hit = strstr(govs, gov);
		if (!(hit && (hit == govs || hit[-1] == ',') && (hit[g] == ',' || !hit[g])))
			snprintf(govs + n, glen - n, "%s%s", n ? "," : "", gov);
	}
	return ok && freq_fact(root, pol, "scaling_cur_freq", "cur", out) &&
	       freq_fact(root, pol, "scaling_min_freq", "min", out) &&
	       freq_fact(root, pol, "scaling_max_freq", "max", out);
}

static bool cpufreq(const char *root, struct nb_facts *out)
{
	long pols[256];
	char govs[200] = "", why[256];
	int err;
	int n = nb_env_list_numbered(root, "sys/devices/system/cpu/cpufreq", "policy", pols, 256, &err);
	if (n <= 0) {
		nb_env_reason(why, sizeof(why), err, "sys/devices/system/cpu/cpufreq", NO_CPUFREQ);
		return nb_facts_unknown(out, G, "governor", "%s", n == 0 ? NO_CPUFREQ : why);
	}
	bool ok = nb_facts_set(out, G, "governor", "?");
	for (int i = 0; ok && i < n; i++)
		ok = policy(root, pols[i], govs, sizeof(govs), out);
	if (!ok)
		return false;
	if (!govs[0])
		return nb_facts_unknown(out, G, "governor", "no policy exposes scaling_governor");
	return nb_facts_set(out, G, "governor", "%s", govs);
}

static bool loadavg(const char *root, struct nb_facts *out)
{
	char v[128], why[256];
	int err = nb_env_read(root, "proc/loadavg", v, sizeof(v));
	if (err) {
		nb_env_reason(why, sizeof(why), err, "proc/loadavg", NULL);
		return nb_facts_unknown(out, G, "loadavg", "%s", why);
	}
	double a, b, c;
	if (sscanf(v, "%lf %lf %lf", &a, &b, &c) != 3)
		return nb_facts_unknown(out, G, "loadavg", "malformed /proc/loadavg: %s", v);
	return nb_facts_set(out, G, "loadavg", "%.2f %.2f %.2f", a, b, c);
}

bool nb_env_cpu(const char *root, struct nb_facts *out)
{
	return cpuinfo(root, out) && online(root, out) && numa(root, out) &&
	       nb_env_file_fact(out, root, G, "smt", "sys/devices/system/cpu/smt/control",
				"not exposed: no /sys/devices/system/cpu/smt (kernel without SMT control)") &&
	       cpufreq(root, out) && loadavg(root, out);
}
