#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# make e2e: the socket families Debian builds as modules, loaded by this
# unprivileged process's own calls. Prints one line a probe, "NAME:
# RESULT", where RESULT is "bound", "refused: ERRNO" or what the probe
# saw. e2e/check.sh (t_modules) runs it as alice and judges the lines:
# the policy (guest/50-e2e.policy) reserves 7000 in every protocol and
# 16385/tcp for the kernel alone.
#
#   families.py          SCTP, SMC (AF_SMC and IPPROTO_SMC), AF_RXRPC and
#                        IPPROTO_L2TP, which socket() loads by their
#                        aliases; RDS and TIPC, which declare no alias
#                        and so do not load; 16385/tcp
#   families.py rds      once root loaded rds and tipc: the RDS option
#                        that loads rds_tcp, a TIPC socket
import ctypes
import socket
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
RESERVED, FREE = 7000, 7009

AF_SMC, AF_RXRPC, AF_RDS, AF_TIPC = 43, 33, 21, 30
IPPROTO_SMC, IPPROTO_L2TP = 256, 115
SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP = 276, 8, 2


def sockaddr_in(port):
    """A struct sockaddr_in for 127.0.0.1:PORT, as bytes."""
    return (struct.pack("=H", socket.AF_INET) +
            struct.pack("!H4s", port, socket.inet_aton("127.0.0.1")) +
            bytes(8))


def sockaddr_rxrpc(port):
    """A struct sockaddr_rxrpc: service 1 over UDP at 127.0.0.1:PORT."""
    sin = sockaddr_in(port)
    return (struct.pack("=HHHH", AF_RXRPC, 1, socket.SOCK_DGRAM, len(sin)) +
            sin + bytes(28 - len(sin)))


def raw_bind(sock, addr):
    """bind(2) with ADDR as given: Python knows no AF_SMC or AF_RXRPC."""
    buf = ctypes.create_string_buffer(addr, len(addr))
    if libc.bind(sock.fileno(), buf, len(addr)) == 0:
        return "bound"
    return "refused: %d" % ctypes.get_errno()


def probe(name, family, kind, proto, addr):
    """Create a socket (which loads the family's module) and bind it."""
    try:
        sock = socket.socket(family, kind, proto)
    except OSError as e:
        print("%s: socket() failed: %d" % (name, e.errno))
        return
    with sock:
        print("%s: %s" % (name, raw_bind(sock, addr)))


def create(name, family, kind, proto):
    """Create a socket and close it: print whether it could be."""
    try:
        socket.socket(family, kind, proto).close()
        print("%s: socket created" % name)
    except OSError as e:
        print("%s: socket() failed: %d" % (name, e.errno))


def sctp_port_zero():
    """Bind SCTP sockets to port 0 until none is left; print the ports."""
    socks, ports = [], []
    while len(ports) < 200:
        s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET,
                          socket.IPPROTO_SCTP)
        try:
            s.bind(("127.0.0.1", 0))
        except OSError:
            s.close()
            break
        socks.append(s)
        ports.append(s.getsockname()[1])
    print("sctp port 0: %s" % " ".join(map(str, sorted(ports))))
    for s in socks:
        s.close()


def by_alias():
    """The families whose modules socket() loads, and two that it does not."""
    for port in (RESERVED, FREE):
        probe("sctp %d" % port, socket.AF_INET, socket.SOCK_STREAM,
              socket.IPPROTO_SCTP, sockaddr_in(port))
        probe("smc %d" % port, AF_SMC, socket.SOCK_STREAM, 0,
              sockaddr_in(port))
        probe("smc-inet %d" % port, socket.AF_INET, socket.SOCK_STREAM,
              IPPROTO_SMC, sockaddr_in(port))
        probe("rxrpc %d" % port, AF_RXRPC, socket.SOCK_DGRAM,
              socket.AF_INET, sockaddr_rxrpc(port))
    # The kernel's own choice of an SCTP port, now that sctp.ko is in.
    sctp_port_zero()
    # IPPROTO_L2TP sockets take no IP port: their module loads.
    create("l2tp_ip", socket.AF_INET, socket.SOCK_DGRAM, IPPROTO_L2TP)
    create("rds", AF_RDS, socket.SOCK_SEQPACKET, 0)
    create("tipc", AF_TIPC, socket.SOCK_RDM, 0)
    # rds_tcp's port, reserved for the kernel: refused to this process
    # (nothing listens there yet).
    probe("tcp 16385", socket.AF_INET, socket.SOCK_STREAM, 0,
          sockaddr_in(16385))


def rds():
    """With rds.ko loaded: the socket option that loads rds_tcp."""
    try:
        with socket.socket(AF_RDS, socket.SOCK_SEQPACKET, 0) as s:
            s.setsockopt(SOL_RDS, SO_RDS_TRANSPORT, RDS_TRANS_TCP)
            print("rds: transport tcp set")
    except OSError as e:
        print("rds: failed: %d" % e.errno)
    create("tipc", AF_TIPC, socket.SOCK_RDM, 0)


if sys.argv[1:] == ["rds"]:
    rds()
else:
    by_alias()
sys.stdout.flush()
