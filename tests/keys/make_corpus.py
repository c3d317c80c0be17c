#!/usr/bin/env python3
"""Write the seed corpus of tests/keys/fuzz_keys.c into tests/keys/corpus (see its header for the
input layout). Seeds cover every hand-written command table with a typical call, both call forms
(arguments split at '\\n', raw RESP), and raw specs of every kind.

Usage: python3 tests/keys/make_corpus.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

# Index into all_cmd_specs (cmd_specs.h) and a call for it.
TABLE_CALLS = [
    (0, "GET\nk"),
    (1, "SET\nk\nv\nEX\n10"),
    (2, "MSET\n{a}1\nx\n{a}2\ny"),
    (3, "DEL\na\nb\nc"),
    (4, "BLPOP\na\nb\n0"),
    (5, "EVAL\ns\n2\na\nb\nx"),
    (6, "XREAD\nCOUNT\n2\nSTREAMS\na\nb\n0\n0"),
    (7, "XREADGROUP\nGROUP\ng\nc\nSTREAMS\na\n>"),
    (8, "ZUNIONSTORE\nd\n2\na\nb\nWEIGHTS\n1\n2"),
    (9, "MIGRATE\nh\np\n\n0\n100\nKEYS\na\nb"),
    (10, "SORT\nk\nBY\nw_*\nSTORE\nd"),
    (11, "LMPOP\n2\na\nb\nLEFT"),
    (12, "BLMPOP\n0\n2\na\nb\nLEFT"),
    (13, "GEORADIUS\nk\n0\n0\n1\nkm\nSTORE\nd\nSTOREDIST\ne"),
    (14, "OBJECT\nENCODING\nk"),
    (15, "XGROUP\nCREATE\nk\ng\n$"),
    (16, "SMOVE\na\nb\nm"),
    (17, "RENAME\na\nb"),
    (18, "COPY\na\nb\nDB\n1"),
    (19, "LCS\na\nb"),
    (20, "SINTERCARD\n2\na\nb"),
    (21, "BITOP\nAND\nd\na\nb"),
    (22, "SPUBLISH\nch\nm"),
    (5, "EVAL\ns\n999999\na"),
    (5, "EVAL\ns\n-1\na"),
]


def resp(words):
    out = b"*%d\r\n" % len(words)
    for w in words:
        out += b"$%d\r\n%s\r\n" % (len(w), w)
    return out


def control(nspecs, raw, cap):
    return bytes([nspecs | (4 if raw else 0) | (cap << 3)])


def raw_spec(begin, find, index, startfrom, lastkey, limit, keynumidx, firstkey, step, flags,
             keyword):
    fields = (begin, find, index, startfrom, lastkey, limit, keynumidx, firstkey, step)
    return b"\x00" + struct.pack("<2B7b", *fields) + bytes([flags, keyword])


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {}
    for i, (table, call) in enumerate(TABLE_CALLS):
        words = call.encode().split(b"\n")
        seeds["table_%02d_split" % i] = control(1, False, 8) + bytes([0x80 | table]) + call.encode()
        seeds["table_%02d_resp" % i] = control(1, True, 8) + bytes([0x80 | table]) + resp(words)
    # begin: 1 index, 2 keyword; find: 3 range, 4 keynum (rg_ks_kind values).
    seeds["spec_index_range"] = control(1, False, 4) + raw_spec(1, 3, 1, 0, -1, 0, 0, 0, 2, 0,
                                                                 0) + b"MSET\na\n1\nb\n2"
    seeds["spec_keyword_limit"] = control(1, False, 4) + raw_spec(2, 3, 0, 1, -1, 2, 0, 0, 1, 0,
                                                                   0) + b"XREAD\nSTREAMS\na\n0"
    seeds["spec_keyword_back"] = control(1, False, 4) + raw_spec(2, 3, 0, -2, -1, 0, 0, 0, 1, 2,
                                                                  1) + b"M\nh\nKEYS\na\nb"
    seeds["spec_keynum"] = control(2, False, 4) + raw_spec(1, 3, 1, 0, 0, 0, 0, 0, 1, 0, 0) + \
        raw_spec(1, 4, 2, 0, 0, 0, 0, 1, 1, 0, 0) + b"Z\nd\n2\na\nb"
    seeds["spec_unknown_notkey"] = control(2, False, 4) + raw_spec(0, 0, 1, 0, 0, 0, 0, 0, 1, 0,
                                                                    0) + \
        raw_spec(1, 3, 1, 0, 0, 0, 0, 0, 1, 1, 0) + b"X\na"
    seeds["raw_malformed"] = control(0, True, 0) + b"*2\r\n$3\r\nGET\r\n$-1\r\n"
    seeds["empty"] = b""
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
