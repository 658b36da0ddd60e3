#include "outdir.h"

#include <errno.h>
#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "nb_config.h"

void nb_utc_now(char *out, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static bool mkdir_p(const char *path, struct nb_error *err)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
			return nb_error_errno(err, errno, "cannot create %s", tmp);
		*p = '/';
	}
	if (mkdir(tmp, 0755) < 0 && errno != EEXIST)
		return nb_error_errno(err, errno, "cannot create %s", tmp);
	return true;
}

bool nb_outdir_create(const char *dir, const char *config_name, char *out, size_t n,
		      struct nb_error *err)
{
	if (dir) {
		snprintf(out, n, "%s", dir);
	} else {
		char stamp[32];
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
		snprintf(out, n, "results/%s-%s", config_name[0] ? config_name : "nbrun", stamp);
	}
	char sub[4200];
	snprintf(sub, sizeof(sub), "%s/latency", out);
	return mkdir_p(out, err) && mkdir_p(sub, err);
}

static bool write_file(const char *dir, const char *name, const void *data, size_t len,
		       struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f)
		return nb_error_errno(err, errno, "cannot write %s", path);
	bool ok = fwrite(data, 1, len, f) == len;
	if (fclose(f) != 0 || !ok)
		return nb_error_errno(err, errno, "cannot write %s", path);
	return true;
}

bool nb_outdir_write_inputs(const char *dir, const struct nb_config *cfg, const struct nb_plan *plan,
			    struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/plan.csv", dir);
	return write_file(dir, "config.yaml", cfg->text ? cfg->text : "", cfg->text_len, err) &&
	       nb_plan_write_csv(plan, path, err);
}

bool nb_outdir_write_meta(const char *dir, const struct nb_meta *m, struct nb_error *err)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:i, s:i}",
			      "nbrun_version", NB_VERSION, "command", m->command ? m->command : "",
			      "config_name", m->config_name ? m->config_name : "",
			      "config_sha256", m->config_sha256, "started_utc", m->started_utc,
			      "finished_utc", m->finished_utc, "peer", m->peer ? m->peer : "",
			      "order", m->order ? m->order : "", "complete", m->complete,
			      "runs_ok", (json_int_t)m->runs_ok, "runs_failed", (json_int_t)m->runs_failed);
	if (!o)
		return nb_error_set(err, "meta.json: cannot encode (not UTF-8?)");
	char path[4200];
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	int rc = json_dump_file(o, path, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	if (rc != 0)
		return nb_error_errno(err, errno, "cannot write %s", path);
	return true;
}

bool nb_outdir_write_hist(const char *dir, uint32_t run_id, const struct nb_hist *h,
			  struct nb_error *err)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/latency/run-%u.csv", dir, run_id);
	FILE *f = fopen(path, "w");
	if (!f)
		return nb_error_errno(err, errno, "cannot write %s", path);
	fprintf(f, "bucket_lower_ns,count\n");
	for (size_t i = 0; i < NB_HIST_BUCKETS; i++) {
		uint64_t c = atomic_load_explicit(&h->counts[i], memory_order_relaxed);
		if (c)
			fprintf(f, "%llu,%llu\n", (unsigned long long)nb_hist_bucket_lower(i),
				(unsigned long long)c);
	}
	if (fclose(f) != 0)
		return nb_error_errno(err, errno, "cannot write %s", path);
	return true;
}

void nb_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, data, len);
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}
