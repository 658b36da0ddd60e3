/* nbrun — config.yaml, the copy of the config: the exact bytes of the config that ran, kept
 * in the results folder so it says what it measured even after the original file changed.
 * (Named config_copy: runner/config/config_yaml.c is the YAML parser.) */
#ifndef NB_CONFIG_COPY_H
#define NB_CONFIG_COPY_H

#include <stdbool.h>
#include <stddef.h>

#include "nb_error.h"

#define NB_CONFIG_COPY_FILE "config.yaml"

/** Write DIR/config.yaml: len bytes of text (NULL: an empty file). */
bool nb_config_copy_write(const char *dir, const char *text, size_t len, struct nb_error *err);
/** Read DIR/config.yaml into a malloc'd NUL-terminated buffer (its length in *len); NULL and
 *  err when it cannot be read. */
char *nb_config_copy_read(const char *dir, size_t *len, struct nb_error *err);

#endif
