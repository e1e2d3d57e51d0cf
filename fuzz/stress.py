#!/usr/bin/env python3
"""Large, regular PTX kernels that stress the analyzer's worst cases (book/src/reliability/README.md).

    python3 fuzz/stress.py SHAPE N > big.ptx && phasegate lint big.ptx

SHAPE is one of: straight (N instructions), scopes (N nested `{ }` scopes), chain (N forward
branches on a divergent predicate, one register defined N times), loops (N nested loops),
barriers (N pairs of named barriers on divergent paths), mbar (N mbarrier objects),
backedges (N back edges to scattered headers), funcs (N small kernels),
scoped_ranges (N scopes each declaring `.reg .b32 r<4000000000>`).
"""
import sys

H = '.version 8.0\n.target sm_90\n.address_size 64\n'
REGS = '.reg .pred %p<10>;\n.reg .b32 %r<100>;\n.reg .b64 %rd<100>;\n'


def entry(body, regs=REGS):
    return H + '.visible .entry k(.param .u64 a)\n{\n' + regs + body + 'ret;\n}\n'


def straight(n):
    return entry(''.join(f'add.u32 %r{i % 90 + 1}, %r{(i + 1) % 90 + 1}, {i};\n' for i in range(n)))


def scopes(n):
    return entry('{\n' * n + 'mov.u32 %r1, %tid.x;\n' * n + '}\n' * n)


def chain(n):
    b = 'mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\n'
    for i in range(n):
        b += f'@%p1 bra L{i};\nadd.u32 %r2, %r2, 1;\nL{i}:\n'
    return entry(b + 'bar.sync 0;\n')


def loops(n):
    b = ''
    for i in range(n):
        b += f'H{i}:\nadd.u32 %r{i % 90 + 1}, %r{i % 90 + 1}, 1;\n'
    b += 'bar.sync 0;\n'
    for i in reversed(range(n)):
        b += f'setp.lt.u32 %p1, %r{i % 90 + 1}, 10;\n@%p1 bra H{i};\n'
    return entry(b)


def barriers(n):
    b = 'mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 64;\n'
    for i in range(n):
        b += f'@%p1 bra A{i};\nbar.sync {i % 16}, 64;\nbra B{i};\nA{i}:\nbar.sync {(i + 1) % 16}, 64;\nB{i}:\n'
    return entry(b)


def mbar(n):
    decls = ''.join(f'.shared .align 8 .b64 bar{i};\n' for i in range(n))
    b = ''
    for i in range(n):
        b += (f'mbarrier.init.shared::cta.b64 [bar{i}], 1;\nmbarrier.arrive.shared::cta.b64 %rd1, [bar{i}];\n'
              f'W{i}:\nmbarrier.try_wait.parity.shared::cta.b64 %p2, [bar{i}], 0;\n@!%p2 bra W{i};\n')
    return H + decls + '.visible .entry k()\n{\n' + REGS + b + 'ret;\n}\n'


def backedges(n):
    b = 'mov.u32 %r1, %tid.x;\nsetp.lt.u32 %p1, %r1, 64;\n'
    for i in range(n):
        b += f'L{i}:\n@%p1 bra L{(i * 7) % (i + 1)};\nadd.u32 %r2, %r2, 1;\n'
    return entry(b + 'bar.sync 0;\n')


def funcs(n):
    return H + ''.join(
        f'.visible .entry k{i}()\n{{\n.reg .b32 %r<4>;\nmov.u32 %r1, %tid.x;\nbar.sync 0;\nret;\n}}\n' for i in range(n))


def scoped_ranges(n):
    return entry('{ .reg .b32 r<4000000000>; }\n' * n)


SHAPES = dict(straight=straight, scopes=scopes, chain=chain, loops=loops, barriers=barriers, mbar=mbar,
              backedges=backedges, funcs=funcs, scoped_ranges=scoped_ranges)

if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in SHAPES:
        sys.exit(__doc__)
    sys.stdout.write(SHAPES[sys.argv[1]](int(sys.argv[2])))
