/* nbrun — fuzz harnesses: one entry point per harness (fuzz_NAME.c), driven by libFuzzer in a
 * -Dfuzz=true build (scripts/fuzz) and by replay.c over the seed corpus and every input that
 * ever crashed (tests/fuzz/corpus, tests/fuzz/regress) as a unit test of every build. */
#ifndef NB_FUZZ_H
#define NB_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/** One input; returns 0 (libFuzzer's contract). A finding aborts (assert) or is caught by a sanitizer. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
