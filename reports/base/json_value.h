/* nbrun — a C string or a double as a JSON value, for every JSON document nbrun writes
 * (results.json, compare's JSON): text from the CSV files may hold any bytes, so invalid UTF-8
 * becomes U+FFFD and the document stays valid; a number that is not finite becomes null. */
#ifndef NB_JSON_VALUE_H
#define NB_JSON_VALUE_H

#include <jansson.h>

/** A JSON string for any C string (NULL → JSON null); invalid UTF-8 bytes become U+FFFD. */
json_t *nb_json_string(const char *s);
/** A JSON number, or null for NAN and infinities. */
json_t *nb_json_number(double v);

#endif
