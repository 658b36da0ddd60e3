#!/usr/bin/env python3
"""Reference frames for tests/test_xdp_frame.c, computed with struct alone (no nbrun code).

    xdp_frames_ref.py        prints each case's frame as a C string of hex bytes

The checksum is RFC 1071's, written here independently of engines/xdp/xdp_frame.c: the sum of
16-bit big-endian words with end-around carry, an odd last byte padded with zero, complemented;
UDP over the RFC 768 / RFC 8200 pseudo-header, a computed 0 sent as 0xffff.
"""
import socket
import struct

SRC_MAC = bytes.fromhex('02000000000a')
DST_MAC = bytes.fromhex('02000000000b')


def csum(data):
    if len(data) % 2:
        data += b'\0'
    s = sum(struct.unpack('!%dH' % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def payload(n):
    return bytes((i * 7 + 3) & 0xff for i in range(n))


def udp(sport, dport, data, pseudo):
    hdr = struct.pack('!HHHH', sport, dport, 8 + len(data), 0)
    c = csum(pseudo + hdr + data) or 0xffff
    return struct.pack('!HHHH', sport, dport, 8 + len(data), c) + data


def frame4(src, dst, sport, dport, data, tos=0):
    s, d = socket.inet_aton(src), socket.inet_aton(dst)
    ulen = 8 + len(data)
    pseudo = s + d + struct.pack('!BBH', 0, 17, ulen)
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, tos, 20 + ulen, 0, 0x4000, 64, 17, 0, s, d)
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    return DST_MAC + SRC_MAC + b'\x08\x00' + ip + udp(sport, dport, data, pseudo)


def frame6(src, dst, sport, dport, data, tclass=0):
    s, d = socket.inet_pton(socket.AF_INET6, src), socket.inet_pton(socket.AF_INET6, dst)
    ulen = 8 + len(data)
    pseudo = s + d + struct.pack('!IxxxB', ulen, 17)
    ip = struct.pack('!IHBB16s16s', 6 << 28 | tclass << 20, ulen, 17, 64, s, d)
    return DST_MAC + SRC_MAC + b'\x86\xdd' + ip + udp(sport, dport, data, pseudo)


CASES = [
    ('v4_64', frame4('10.233.0.1', '10.233.0.2', 40000, 7600, payload(64))),
    ('v4_odd_1', frame4('192.0.2.1', '198.51.100.7', 1, 65535, payload(1))),
    ('v4_odd_63', frame4('10.233.0.1', '10.233.0.2', 40000, 7600, payload(63), tos=0xb8)),
    ('v4_empty', frame4('10.0.0.1', '10.0.0.2', 9, 9, b'')),
    ('v6_64', frame6('fd00::1', 'fd00::2', 40000, 7600, payload(64))),
    ('v6_odd_3', frame6('2001:db8::a', 'fe80::1:2:3:4', 5353, 7601, payload(3), tclass=0x2e)),
]

if __name__ == '__main__':
    for name, f in CASES:
        print('/* %s: %d bytes */' % (name, len(f)))
        print('"' + ''.join('%02x' % b for b in f) + '"')
