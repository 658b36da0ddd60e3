/* nbrun — UDP GSO and GRO for the UDP test flows (stream, pps), and the sender whose datagrams
 * lie back to back in one buffer that both offloads need.
 *
 * Sender. Each datagram keeps its own udpseq header (sequence number, send stamp, epoch): the
 * buffer holds per_call datagrams of `size` bytes at a stride of `size`, the headers are filled
 * in place (nb_udptx stamps them), and then either one sendmsg with a UDP_SEGMENT control
 * message hands the kernel the whole run of datagrams (GSO: the kernel, or the NIC, cuts it
 * into datagrams of `size` bytes, up to NB_GSO_SEGS_MAX of them and NB_UDP_MAX_PAYLOAD bytes in
 * all), or one sendmmsg sends one message per datagram. A GSO send is all or nothing: a
 * refusal (ENOBUFS) keeps every sequence number for the next call, as a refused sendmmsg does.
 * When the kernel or the path refuses GSO itself (EIO: no checksum offload on the route;
 * EMSGSIZE, or EINVAL from older kernels: a segment does not fit the route's MTU; ENOPROTOOPT /
 * EOPNOTSUPP: a kernel without it; the buffer itself never exceeds what one send may carry), the same datagrams go out by sendmmsg at once and the flow stays on sendmmsg; the
 * sender's NB_G_GSO gauge says which ran (enum nb_gso), and the row says gso=on|off|unsupported.
 *
 * Receiver. With UDP_GRO the kernel may hand over several datagrams of one flow in one buffer
 * (64 KiB per message, so the largest coalesced buffer fits); its UDP_GRO control message gives
 * the segment size, every segment is one datagram (the last may be shorter) and each is
 * accounted by its own header: sequence, loss, reordering, duplicates and epoch as without GRO.
 * What the socket's full buffer drops is then a whole coalesced buffer, and the kernel's drop
 * counter (rcvbuf_drops) counts buffers, not datagrams; `lost` stays exact.
 * The kernel stamps the buffer once, so only its first datagram enters the RFC 3550 jitter; the
 * others have no receive time of their own (docs/engines.md: what jitter means under GRO).
 */
#ifndef NB_UDPGSO_H
#define NB_UDPGSO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "udpflow.h"

#define NB_GSO_SEGS_MAX 64u     /* UDP_MAX_SEGMENTS of older kernels (newer: 128) */
#define NB_GRO_BATCH 8u         /* GRO buffers per recvmmsg */
#define NB_GRO_BUF 65536u       /* one GRO buffer: the largest coalesced datagram run fits */

/** Whether and how a UDP sender used GSO (the value of NB_G_GSO); ordered so that the largest
 *  over a run's flows is what its row says. */
enum nb_gso {
	NB_GSO_NONE,            /* not a UDP sender */
	NB_GSO_OFF,             /* not asked for (gso: false), or one datagram per send fits */
	NB_GSO_ON,              /* UDP_SEGMENT sends */
	NB_GSO_UNSUPPORTED,     /* asked for, refused by the kernel or the path: sendmmsg instead */
	NB_GSO_COUNT
};

/** Whether a UDP receiver asked for GRO (the value of NB_G_GRO), ordered as enum nb_gso. */
enum nb_gro {
	NB_GRO_NONE,            /* not a UDP receiver */
	NB_GRO_OFF,             /* one datagram per receive buffer */
	NB_GRO_ON,              /* UDP_GRO: a buffer may hold several datagrams */
	NB_GRO_COUNT
};

/** "off", "on", "unsupported" ("" for NONE or a value out of range). */
const char *nb_gso_name(enum nb_gso g);
/** "off", "on" ("" for NONE or a value out of range). */
const char *nb_gro_name(enum nb_gro g);

/** Datagrams of size bytes one GSO send may carry: at most NB_GSO_SEGS_MAX and
 *  NB_UDP_MAX_PAYLOAD bytes in all (at least 1). */
uint32_t nb_udpgso_segs(uint32_t size);

/** A UDP sender with its datagrams back to back: tx.hdr holds per_call datagrams of size bytes,
 *  msg and iov one message per datagram for sendmmsg. */
struct nb_udpgso_tx {
	struct nb_udptx tx;
	struct mmsghdr *msg;
	struct iovec *iov;
};

/** Lay out per_call datagrams of f's size and choose the send call: GSO when gso is asked for
 *  and two datagrams fit in one send, else sendmmsg (NB_G_GSO says which); false with f->err
 *  set (nothing to free). The caller then starts the sender (nb_udptx_start). */
bool nb_udpgso_tx_init(struct nb_udpgso_tx *t, struct nb_flow *f, uint32_t per_call, bool gso);
/** Free what nb_udpgso_tx_init allocated. */
void nb_udpgso_tx_free(struct nb_udpgso_tx *t);

/** Ask for UDP_GRO on fd; false when the kernel has none. A receiver asks in its engine's
 *  prepare_socket, before any peer sends: a datagram queued before is not coalesced, and a full
 *  buffer then drops it alone, not as part of a buffer (see rcvbuf_drops above). */
bool nb_udpgso_gro_on(int fd);
/** Set up f's receiver: with gro asked for and granted by the kernel, NB_GRO_BATCH buffers of
 *  NB_GRO_BUF bytes that may hold several datagrams each; else nmsg buffers of buflen bytes, one
 *  datagram each. NB_G_GRO says which; false with f->err set (nothing to free). */
bool nb_udpgso_rx_init(struct nb_udprx *r, struct nb_flow *f, bool gro, uint32_t nmsg, size_t buflen);
/** nb_udprx.account under GRO: account every datagram of message i, the first at recv_ns, the
 *  others without a receive time of their own (see above). */
void nb_udpgso_account(struct nb_udprx *r, uint32_t i, uint64_t recv_ns);

#endif
