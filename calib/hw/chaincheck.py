#!/usr/bin/env python3
"""calib/hw/chaincheck.py CUBIN - check that the latency chains of wcbench
were compiled as written: for each chain kernel k_OP, the longest run of
instructions of OP's opcode in which each one reads the register the
previous one wrote must be at least the chain length (256; 64 for mma_f16).

Works without cuobjdump: it decodes the 128-bit sm_70+ encodings of the
cubin's .text.KERNEL sections itself (opcode = low 9 bits of the first
64-bit word, Rd bits 16-23, Ra 24-31, Rb 32-39 in the register form, Rc bits
0-7 of the second word; opcodes as cuobjdump of CUDA 13 prints them for
sm_90).  sin.approx scales its operand with an FMUL first: that chain runs
through one FMUL per step; rcp takes |a| (one FADD per step), because ptxas
folds rcp(rcp(a)) = a.  Exit status 1 and a message per short chain."""
import struct
import sys

OPC = {'IADD3': 0x010, 'LOP3': 0x012, 'FMUL': 0x020, 'FADD': 0x021,
       'FFMA': 0x023, 'IMAD': 0x024, 'DADD': 0x029, 'DFMA': 0x02b,
       'HFMA2': 0x031, 'HMMA': 0x03c, 'MUFU': 0x108}
CHAINS = {'ffma': ('FFMA', 256), 'fadd': ('FADD', 256), 'fmul': ('FMUL', 256),
          'imad': ('IMAD', 256), 'iadd3': ('IADD3', 256), 'lop3': ('LOP3', 256),
          'hfma2': ('HFMA2', 256), 'dfma': ('DFMA', 256), 'dadd': ('DADD', 256),
          'mufu_ex2': ('MUFU', 256), 'mufu_rsq': ('MUFU', 256),
          'mufu_sin': ('MUFU', 256, 'FMUL'), 'mufu_lg2': ('MUFU', 256),
          'mufu_rcp': ('MUFU', 256, 'FADD'), 'mma_f16': ('HMMA', 64)}


def sections(b):
    if b[:4] != b'\x7fELF' or b[4] != 2:
        raise SystemExit('chaincheck: not a 64-bit ELF cubin')
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    sh = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize)
          for i in range(shnum)]
    stro = sh[shstrndx][4]

    def name(o):
        e = b.index(b'\0', stro + o)
        return b[stro + o:e].decode()
    return {name(s[0]): b[s[4]:s[4] + s[5]] for s in sh}


def longest_chain(text, opc, via=None):
    best, prev_rd, run, count = 0, None, 0, 0
    alt = {0x031: {0x031, 0x035}}.get(opc, {opc})  # HFMA2 has two encodings
    for i in range(0, len(text) - 15, 16):
        lo, hi = struct.unpack_from('<QQ', text, i)
        if via is not None and lo & 0x1ff == via and prev_rd is not None \
                and (lo >> 24) & 255 == prev_rd:
            prev_rd = (lo >> 16) & 255  # the op's result passes through it
            continue
        if lo & 0x1ff not in alt:
            # another instruction that may write the chain's register (bits
            # 16-23 are the destination of most ALU forms) breaks the chain:
            # conservative, it can only shorten a chain
            if prev_rd is not None and (lo >> 16) & 255 == prev_rd:
                prev_rd, run = None, 0
            continue
        count += 1
        rd, ra, rb, rc = (lo >> 16) & 255, (lo >> 24) & 255, (lo >> 32) & 255, hi & 255
        srcs = {ra, rc}
        if (lo >> 9) & 7 == 1:  # register form: Rb is a register
            srcs.add(rb)
        run = run + 1 if prev_rd is not None and prev_rd in srcs else 1
        prev_rd = rd
        best = max(best, run)
    return best, count


def main():
    if len(sys.argv) != 2:
        raise SystemExit('usage: chaincheck.py CUBIN')
    secs = sections(open(sys.argv[1], 'rb').read())
    bad = 0
    for op, spec in sorted(CHAINS.items()):
        mn, need = spec[0], spec[1]
        via = OPC[spec[2]] if len(spec) > 2 else None
        mangled = '.text._Z%dk_%s' % (len('k_' + op), op)  # _Z7k_ffmaPxPff...
        sec = [t for n, t in secs.items()
               if n.startswith(mangled) and not n[len(mangled)].isalnum()
               or n.startswith(mangled + 'P')]
        if not sec:
            print('chaincheck: no kernel k_%s in the cubin' % op)
            bad = 1
            continue
        chain, count = longest_chain(sec[0], OPC[mn], via)
        ok = chain >= need
        print('chaincheck: k_%-9s %5s x%-4d longest dependent chain %4d (want %d) %s'
              % (op, mn, count, chain, need, 'ok' if ok else 'FOLDED'))
        bad |= not ok
    sys.exit(1 if bad else 0)


main()
