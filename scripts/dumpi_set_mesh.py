#!/usr/bin/env python3
"""Rewrites a DUMPI .bin's header with mesh coordinates (and optionally a host name).

    python3 scripts/dumpi_set_mesh.py IN.bin OUT.bin --coords 1,2,3 --mesh 17,8,24 [--host NAME]

sst-dumpi records a rank's position in the machine's mesh in its header only where the
platform reports it, and no public trace we ship has one: this builds the test fixtures of
`"placement": {"from_trace": true}` from a shipped trace. The layout is sst-dumpi's
(dumpi/common/io.c, `dumpi_write_header`): big-endian; version (3 bytes), start time (u64),
host name and user name (u16 length, then bytes), then two i32 arrays of mesh dimension
count each, the coordinates and the mesh size. The header is replaced in place and every
section the file's index places after it moves by the change in its length; the other bytes
are copied unchanged.
"""
import argparse
import struct
import sys

MAGIC = b"\xff\xaa\xddDUMPI"
INDEX_BYTES = 64  # magic, then the offsets of 7 sections (u64 each)


def ints(text):
    return [int(v) for v in text.split(",")] if text else []


def parse_header(data, start):
    version = data[start:start + 3]
    (start_time,) = struct.unpack_from(">Q", data, start + 3)
    pos = start + 11
    strings = []
    for _ in range(2):
        (n,) = struct.unpack_from(">H", data, pos)
        strings.append(data[pos + 2:pos + 2 + n])
        pos += 2 + n
    (dims,) = struct.unpack_from(">i", data, pos)
    pos += 4 + 4 * dims
    if dims > 0:
        (size_dims,) = struct.unpack_from(">i", data, pos)
        pos += 4 + 4 * size_dims
    else:
        pos += 4  # the writer puts the (empty) mesh size array too
    return version, start_time, strings[0], strings[1], pos


def header_bytes(version, start_time, host, user, coords, mesh):
    out = bytearray(version) + struct.pack(">Q", start_time)
    for s in (host, user):
        out += struct.pack(">H", len(s)) + s
    for array in (coords, mesh):
        out += struct.pack(">i", len(array)) + b"".join(struct.pack(">i", v) for v in array)
    return bytes(out)


def rewrite(data, coords, mesh, host):
    index_at = len(data) - INDEX_BYTES
    if data[:8] != MAGIC or data[index_at:index_at + 8] != MAGIC:
        sys.exit("not a DUMPI .bin file (no magic at its start or at its index)")
    offsets = list(struct.unpack_from(">7Q", data, index_at + 8))
    header = offsets[3]
    version, start_time, old_host, user, end = parse_header(data, header)
    new = header_bytes(version, start_time, old_host if host is None else host.encode(), user, coords, mesh)
    delta = len(new) - (end - header)
    body = data[:header] + new + data[end:index_at]
    moved = [o + delta if o > header else o for o in offsets]
    return body + MAGIC + struct.pack(">7Q", *moved)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--coords", required=True, help="comma-separated coordinates, one per mesh dimension")
    parser.add_argument("--mesh", required=True, help="the mesh's size per dimension (as many values)")
    parser.add_argument("--host", default=None, help="a host name to record instead of the file's own")
    args = parser.parse_args()
    coords = ints(args.coords)
    mesh = ints(args.mesh)
    if len(mesh) != len(coords):
        sys.exit("--mesh needs as many values as --coords")
    with open(args.input, "rb") as f:
        data = f.read()
    with open(args.output, "wb") as f:
        f.write(rewrite(data, coords, mesh, args.host))


if __name__ == "__main__":
    main()
