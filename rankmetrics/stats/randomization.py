"""The paired sign-flip randomization test: p-values of many columns of per-user differences at
once, with the same random flips."""

from __future__ import annotations

import numpy as np

# Row b of _SIGN_TABLE holds the 8 bits of the byte b (most significant first) as -1.0 / +1.0:
# np.take(_SIGN_TABLE, random_bytes, axis=0) turns random bytes into random signs, 8 at a time.
_SIGN_TABLE = (2.0 * np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1) - 1.0).astype(
    np.float32
)

# The randomization test sums float32 signs times float32 differences in blocks of _BLOCK
# users (numpy's einsum, single-threaded and predictable on a busy machine), then adds the block
# sums in float64. Any float32 sum of _BLOCK terms is within (_BLOCK - 1) * eps32/2 of the
# exact one, relative to the sum of the terms' absolute values, and rounding the differences to
# float32 adds eps32/2, so the whole statistic is within (_BLOCK + 1) * eps32/2 * sum|d| of its
# exact value. Permutations closer than that to the observed statistic are recomputed in
# float64, so the float32 shortcut never changes a count.
_BLOCK = 256
_FLOAT32_ERROR = (_BLOCK + 1) * float(np.finfo(np.float32).eps) / 2
# Entries of one chunk of random signs for the randomization test (4 MiB as float32).
_SIGN_CHUNK_ENTRIES = 2**20


def randomization_pvalues(
    diffs: np.ndarray, n_permutations: int, rng: np.random.Generator
) -> np.ndarray:
    """Two-sided sign-flip randomization p-values, one per column of ``diffs`` (n, n_pairs):
    the test behind :func:`paired_comparison`'s ``test="randomization"``, for analyses that
    test many columns at once (every pair at every K) with the same flips.

    Each permutation flips the sign of every user's difference with probability 1/2, the same
    flips for every pair; the statistic is the sum of the flipped differences. Signs come as
    random bytes turned into 8 signs each through ``_SIGN_TABLE``, ``chunk`` permutations at a
    time (``chunk * n <= _SIGN_CHUNK_ENTRIES``). The differences are padded with zeros (which
    add nothing) to whole blocks of ``_BLOCK`` users; see ``_FLOAT32_ERROR`` for the float32
    sums and their float64 recheck.
    """
    n, n_pairs = diffs.shape
    n_padded = -(-n // _BLOCK) * _BLOCK
    n_blocks = n_padded // _BLOCK
    padded = np.zeros((n_pairs, n_padded))
    padded[:, :n] = diffs.T
    blocks32 = padded.astype(np.float32).reshape(n_pairs, n_blocks, _BLOCK)
    scale = np.abs(diffs).sum(axis=0)
    # A permuted sum equal to the observed one in exact arithmetic may differ from it by
    # rounding: any float64 sum of n terms is within (n - 1) * eps/2 * sum|d| of the exact one,
    # so float64 statistics within n * eps * sum|d| of the observed one count as "as extreme".
    threshold = np.abs(diffs.sum(axis=0)) - n * np.finfo(np.float64).eps * scale
    band = _FLOAT32_ERROR * scale
    chunk = max(1, _SIGN_CHUNK_ENTRIES // n_padded)
    extreme = np.zeros(n_pairs, dtype=np.int64)
    approx = np.empty((chunk, n_pairs))
    for start in range(0, n_permutations, chunk):
        rows = min(chunk, n_permutations - start)
        random_bytes = rng.integers(0, 256, size=(rows, n_padded // 8), dtype=np.uint8)
        signs = np.take(_SIGN_TABLE, random_bytes, axis=0).reshape(rows, n_blocks, _BLOCK)
        for p in range(n_pairs):
            block_sums = np.einsum("ijk,jk->ij", signs, blocks32[p])
            approx[:rows, p] = np.abs(block_sums.sum(axis=1, dtype=np.float64))
        extreme += (approx[:rows] > threshold + band).sum(axis=0)
        unsure = np.abs(approx[:rows] - threshold) <= band
        for r in np.flatnonzero(unsure.any(axis=1)):
            exact = np.abs(np.einsum("pj,j->p", padded, signs[r].ravel().astype(np.float64)))
            extreme += (exact >= threshold) & unsure[r]
    return (extreme + 1) / (n_permutations + 1)
