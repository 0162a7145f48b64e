"""Bit tricks the kernels share: sets of cards as 64-bit masks, the lowest set bit's index, and a counter-based generator.

A set of local cards (0..48) is a uint64 with bit c set for card c
(:data:`BITS`); :func:`popcount` counts its cards. Levels present in a column
of W (0..2,160) are kept as a bitmap of 34 words and walked in order by
taking each word's lowest set bit (:func:`lowest_bit`), whose index a de
Bruijn multiplication finds (:func:`bit_index`). :func:`splitmix` is
splitmix64: a generator whose whole state is one integer, so any thread can
run its own stream from a seed.
"""

from __future__ import annotations

import numpy as np

from matchdb.core.pairs import N_LOCAL
from matchdb.jit import jit

#: BITS[c] is the mask of local card c.
BITS = np.array([1 << c for c in range(N_LOCAL)], dtype=np.uint64)
BITS.flags.writeable = False

_DEBRUIJN_CONSTANT = np.uint64(0x03F79D71B4CB0A89)
_S58 = np.uint64(58)


def _debruijn_table() -> np.ndarray:
    """Position of the one set bit of a 64-bit word, looked up by the word times a de Bruijn constant."""
    table = np.zeros(64, dtype=np.int64)
    for i in range(64):
        table[((1 << i) * int(_DEBRUIJN_CONSTANT) % (1 << 64)) >> 58] = i
    return table


#: ``DEBRUIJN[(bit * constant) >> 58]`` is the index of the single set bit ``bit``.
DEBRUIJN = _debruijn_table()
DEBRUIJN.flags.writeable = False


@jit
def lowest_bit(word):
    """The lowest set bit of a non-zero uint64, alone."""
    return word & (np.uint64(0) - word)


@jit
def bit_index(bit):
    """Index 0..63 of the single set bit of ``bit``."""
    return DEBRUIJN[(bit * _DEBRUIJN_CONSTANT) >> _S58]


_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


@jit
def popcount(x):
    """Number of set bits of a uint64."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: splitmix64's two multipliers; also used to spread a seed and a stream number over a start state.
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit
def splitmix(state):
    """(next state, 64 random bits): splitmix64, a counter-based generator any thread can run on its own."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> _S30)) * MIX1
    z = (z ^ (z >> _S27)) * MIX2
    return state, z ^ (z >> _S31)


@jit
def high32(z):
    """The upper 32 bits of a uint64."""
    return z >> _S32


@jit
def low32(z):
    """The lower 32 bits of a uint64."""
    return z & _LOW32


@jit
def below(bits32, n):
    """A uniform integer 0..n-1 from 32 random bits (Lemire's multiply-shift, bias below 2^-32 x n)."""
    return np.int64((bits32 * np.uint64(n)) >> _S32)
