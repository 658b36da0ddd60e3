/* nbrun — host facts: name, kernel, OS, virtualization, boot time, clock. */
#include "env.h"
#include "env_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#define G "host"

/* PRETTY_NAME from os-release, quotes removed. */
static bool os_release(const char *root, struct nb_facts *out)
{
	int err;
	char *s = nb_env_slurp(root, "etc/os-release", &err);
	if (!s)
		s = nb_env_slurp(root, "usr/lib/os-release", &err);
	if (!s)
		return nb_facts_unknown(out, G, "os", "not exposed: no /etc/os-release");
	char *p = strstr(s, "PRETTY_NAME=");
	while (p && p != s && p[-1] != '\n')
		p = strstr(p + 1, "PRETTY_NAME=");
	bool ok;
	if (!p) {
		ok = nb_facts_unknown(out, G, "os", "no PRETTY_NAME in /etc/os-release");
	} else {
		p += strlen("PRETTY_NAME=");
		p[strcspn(p, "\n")] = '\0';
		size_t n = strlen(p);
		if (n >= 2 && (p[0] == '"' || p[0] == '\'') && p[n - 1] == p[0]) {
			p[n - 1] = '\0';
			p++;
		}
		ok = nb_facts_set(out, G, "os", "%s", p);
	}
	free(s);
	return ok;
}

static bool hypervisor(const char *root, struct nb_facts *out)
{
	int err;
	char why[256];
	char *s = nb_env_slurp(root, "proc/cpuinfo", &err);
	if (!s) {
		nb_env_reason(why, sizeof(why), err, "proc/cpuinfo", NULL);
		return nb_facts_unknown(out, G, "virt.hypervisor", "%s", why);
	}
	char *flags = strstr(s, "\nflags");
	bool ok;
	if (!flags) {
		ok = nb_facts_unknown(out, G, "virt.hypervisor", "no CPU flags in /proc/cpuinfo");
	} else {
		flags[strcspn(flags + 1, "\n") + 1] = '\0';
		char *h = strstr(flags, " hypervisor");
		bool yes = h && (h[11] == ' ' || h[11] == '\0');
		ok = nb_facts_set(out, G, "virt.hypervisor", "%s", yes ? "yes (cpuinfo flag)" : "no");
	}
	free(s);
	return ok;
}

/* Container hints: marker files, then the cgroup path of PID 1. */
static bool container(const char *root, struct nb_facts *out)
{
	static const char *const marks[][2] = { { ".dockerenv", "docker (/.dockerenv)" },
						{ "run/.containerenv", "podman (/run/.containerenv)" } };
	static const char *const words[] = { "docker", "kubepods", "containerd", "lxc", "libpod" };
	char path[512];
	for (size_t i = 0; i < 2; i++) {
		nb_env_path(path, sizeof(path), root, marks[i][0]);
		if (!access(path, F_OK))
			return nb_facts_set(out, G, "virt.container", "%s", marks[i][1]);
	}
	int err;
	char why[256];
	char *s = nb_env_slurp(root, "proc/1/cgroup", &err);
	if (!s) {
		nb_env_reason(why, sizeof(why), err, "proc/1/cgroup", NULL);
		return nb_facts_unknown(out, G, "virt.container", "%s", why);
	}
	const char *hit = NULL;
	for (size_t i = 0; !hit && i < sizeof(words) / sizeof(words[0]); i++)
		if (strstr(s, words[i]))
			hit = words[i];
	free(s);
	if (hit)
		return nb_facts_set(out, G, "virt.container", "%s (/proc/1/cgroup)", hit);
	return nb_facts_set(out, G, "virt.container", "none detected");
}

static bool boot_time(const char *root, struct nb_facts *out)
{
	int err;
	char why[256];
	char *s = nb_env_slurp(root, "proc/stat", &err);
	if (!s) {
		nb_env_reason(why, sizeof(why), err, "proc/stat", NULL);
		return nb_facts_unknown(out, G, "boot_time", "%s", why);
	}
	char *b = strstr(s, "\nbtime ");
	time_t t = b ? (time_t)strtoll(b + 7, NULL, 10) : 0;
	free(s);
	struct tm tm;
	char buf[32];
	if (!b || !gmtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return nb_facts_unknown(out, G, "boot_time", "no btime in /proc/stat");
	return nb_facts_set(out, G, "boot_time", "%s", buf);
}

/* adjtimex(2) with modes 0 only reads the kernel clock discipline state. */
static bool time_sync(const char *root, struct nb_facts *out)
{
	if (!nb_env_live(root))
		return nb_facts_unknown(out, G, "time_sync", NB_ENV_FIXTURE);
	struct timex tx = { .modes = 0 };
	int state = adjtimex(&tx);
	if (state < 0)
		return nb_facts_unknown(out, G, "time_sync", "adjtimex failed");
	if (state == TIME_ERROR || (tx.status & STA_UNSYNC))
		return nb_facts_set(out, G, "time_sync", "unsynchronized (STA_UNSYNC)");
	return nb_facts_set(out, G, "time_sync", "synchronized (max error %ld us)", tx.maxerror);
}

bool nb_env_host(const char *root, struct nb_facts *out)
{
	return nb_env_file_fact(out, root, G, "hostname", "proc/sys/kernel/hostname", NULL) &&
	       nb_env_file_fact(out, root, G, "kernel", "proc/sys/kernel/osrelease", NULL) &&
	       os_release(root, out) && hypervisor(root, out) &&
	       nb_env_file_fact(out, root, G, "virt.dmi_vendor", "sys/class/dmi/id/sys_vendor",
				"not exposed: no DMI tables (/sys/class/dmi/id)") &&
	       nb_env_file_fact(out, root, G, "virt.dmi_product", "sys/class/dmi/id/product_name",
				"not exposed: no DMI tables (/sys/class/dmi/id)") &&
	       container(root, out) && boot_time(root, out) &&
	       nb_env_file_fact(out, root, G, "clocksource",
				"sys/devices/system/clocksource/clocksource0/current_clocksource",
				NULL) &&
	       time_sync(root, out);
}
