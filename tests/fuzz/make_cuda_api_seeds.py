#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_cuda_api (tests/fuzz/corpus/cuda_api/): one program per call family.

A program is a list of calls, [opcode][u16 little-endian length][argument bytes] each (fuzz_cuda_api.cpp).
Argument bytes are read as choices: a byte of 5 mostly picks the valid path (a live handle, a small
size, a non-NULL output), 0 and 1 mostly the hostile ones; the seeds mix them so that every family starts
from calls that succeed and from calls that are refused.
"""
import os
import struct
import sys

# Opcodes (run_op): the family is opcode % 24.
CONTEXT, DEVICE, ALLOC, FREE, MEMSET, MEMCPY, MEMINFO = 0, 1, 2, 4, 5, 6, 8
STREAM, EVENT, ARRAY, MODULE, FUNCTION, GRAPH, MEMPOOL, VMM, EXTERNAL = 9, 11, 12, 14, 16, 18, 20, 21, 22


def call(op, *args):
    data = bytes(args)
    return bytes([op]) + struct.pack("<H", len(data)) + data


def family(op, subops, fill):
    """Each sub-operation of a family once, its other arguments all FILL."""
    return b"".join(call(op, s, *([fill] * 48)) for s in range(subops))


# A context made current, a few allocations and objects for later calls to use.
SETUP = (call(CONTEXT, 0, 0, 0, 0) + call(CONTEXT, 19)
         + call(ALLOC, 5, 0, 16, 1, 0, 1) * 3        # cuMemAlloc of 4101 bytes
         + call(ALLOC, 5, 0, 16, 1, 4, 1)            # cuMemAllocHost
         + call(STREAM, 5, 0, 5, 5, 5) + call(EVENT, 5, 0, 5, 5)
         + call(MODULE, 5, 0, 5, 5)                  # the fixed kernels
         + call(ARRAY, 5, 0, 5, 5, 5, 5, 5, 5, 5, 5))

PTX = (b".visible .entry k(.param .u64 p)\n{\n .reg .b64 %rd<2>;\n ld.param.u64 %rd1, [p];\n"
       b" st.global.u32 [%rd1], 1;\n ret;\n}\n")

SEEDS = {
    "context": family(CONTEXT, 20, 5) + family(CONTEXT, 20, 1),
    "device": family(DEVICE, 12, 5) + family(DEVICE, 12, 0),
    "memory": SETUP + family(ALLOC, 10, 5) + family(MEMSET, 12, 5) + family(FREE, 4, 5),
    "memcpy": SETUP + family(MEMCPY, 14, 5) + family(MEMCPY, 14, 1) + family(MEMCPY, 14, 2),
    "meminfo": SETUP + family(MEMINFO, 10, 5) + family(MEMINFO, 10, 3),
    "streams": SETUP + family(STREAM, 14, 5) + family(EVENT, 8, 5) + family(STREAM, 14, 0),
    "arrays": SETUP + family(ARRAY, 10, 5) + family(ARRAY, 10, 2) + family(MEMCPY, 14, 5),
    "modules": SETUP + family(MODULE, 12, 5) + family(FUNCTION, 8, 5) + family(FUNCTION, 8, 2),
    "fuzzed_ptx": SETUP + call(MODULE, 0, 0, len(PTX) & 0xff, len(PTX) >> 8, 1, *PTX, 0, 5, 5) + family(FUNCTION, 8, 5),
    "launch": SETUP + call(FUNCTION, 5, *([5] * 64)) * 4 + call(FUNCTION, 6, *([2] * 64)) * 2,
    "graphs": SETUP + family(GRAPH, 20, 5) + family(GRAPH, 20, 5) + family(GRAPH, 20, 0),
    "capture": SETUP + call(GRAPH, 0, 0, 0) + call(GRAPH, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    + call(GRAPH, 19, 5, 5, 0, 5) + call(MEMSET, *([5] * 32)) + call(GRAPH, 19, 5, 5, 1, 5),
    "pools": SETUP + family(MEMPOOL, 8, 5) + family(MEMPOOL, 8, 1) + family(ALLOC, 10, 5),
    "vmm": SETUP + family(VMM, 8, 5) + family(VMM, 8, 5) + family(VMM, 8, 0),
    "external": SETUP + family(EXTERNAL, 4, 5) + family(EXTERNAL, 4, 1) + family(MEMCPY, 14, 5),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "cuda_api")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
