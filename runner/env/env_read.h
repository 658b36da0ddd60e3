/* nbrun — private helpers of runner/env*.c: reading /proc and /sys under a root prefix,
 * and turning a failed read into the reason a fact is unknown. */
#ifndef NB_ENV_READ_H
#define NB_ENV_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"

/* Reason recorded for facts that need an ioctl or syscall on the live kernel. */
#define NB_ENV_FIXTURE "not available under a fixture root"
#define NB_ENV_MAX_CPUS 4096

/** True when root is the real "/" (NULL and "" count as "/"): ioctls and syscalls may run. */
bool nb_env_live(const char *root);
/** root + "/" + rel into buf (rel has no leading '/'). */
void nb_env_path(char *buf, size_t len, const char *root, const char *rel);
/** Read a small file whole, trailing newlines removed; 0 or an errno. */
int nb_env_read(const char *root, const char *rel, char *buf, size_t len);
/** Read a file of any size (malloc'd, NUL-terminated), or NULL with *err set. */
char *nb_env_slurp(const char *root, const char *rel, int *err);
/** Why rel could not be read, for an unknown fact; missing (if not NULL) is used for ENOENT. */
void nb_env_reason(char *buf, size_t len, int err, const char *rel, const char *missing);
/** Fact from a file's first line (tabs become spaces); unknown with the reason when unreadable. */
bool nb_env_file_fact(struct nb_facts *out, const char *root, const char *group, const char *key,
		      const char *rel, const char *missing);
/** Format a CPU set as a kernel CPU list ("0-3,8"); "" when empty. */
void nb_env_cpulist(char *buf, size_t len, const bool *cpus, size_t max);
/** Sorted numbers n of the entries "<prefix>n" in directory rel; count, or -1 with *err set. */
int nb_env_list_numbered(const char *root, const char *rel, const char *prefix, long *nums,
			 int max, int *err);

#endif
