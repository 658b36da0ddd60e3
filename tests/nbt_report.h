/* Shared by the report tests that read report.md (test_report_udp.c, test_report_paths.c): build
 * the report of a results folder and find its lines. */
#ifndef NBT_REPORT_H
#define NBT_REPORT_H
#include <stdbool.h>

/** Build the report of results folder dir without charts (asserts it builds) and return its
 *  report.md, to free. */
char *nbt_report_md(const char *dir);
/** The line of md that starts with start (asserts there is one). */
const char *nbt_md_line(const char *md, const char *start);
/** Whether text occurs on line, before its end. */
bool nbt_line_has(const char *line, const char *text);
#endif
