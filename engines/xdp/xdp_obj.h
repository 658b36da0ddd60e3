/* nbrun — the XDP program's object file, embedded in the binary at build time (xdp_embed.py
 * from xdp_redirect.bpf.c). Only xdp_prog.c reads it. */
#ifndef NB_XDP_OBJ_H
#define NB_XDP_OBJ_H

#include <stddef.h>

extern const unsigned char nb_xdp_prog_obj[];
extern const size_t nb_xdp_prog_obj_len;

#endif
