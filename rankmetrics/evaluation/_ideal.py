"""Each user's ideal list: the ground-truth gains sorted highest first, held compactly.

NDCG with the ground-truth ideal divides by the DCG of each user's best possible list. Few
distinct gains (the usual case: grades 0-3) are held as the number of items at each level per
user (:class:`LevelCounts`); many distinct gains as the top gains of each user, sparse
(:class:`TopGains`). Users with the same ideal list share its DCG
(:meth:`LevelCounts.distinct_lists`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: Most distinct gain levels for which :class:`LevelCounts` holds the ideal lists.
MAX_LEVELS = 16


#: Most (distinct ideal lists x max_cutoff) values for which NDCG means are summed per
#: ideal list rather than per user.
MAX_IDEAL_CELLS = 2**22


class LevelCounts:
    """Each user's ground-truth gains sorted descending, held as the number of items at each
    gain level (few distinct gains, the usual case): user u's ideal list is ``counts[u, 0]``
    items of the highest level, then ``counts[u, 1]`` of the next, and so on."""

    def __init__(self, counts: np.ndarray, levels: np.ndarray, max_cutoff: int):
        self.ends = np.cumsum(counts, axis=1)  # where each level's run ends, per user
        self.levels = np.concatenate([levels, [0.0]])  # highest first, then "no more gains"
        self.max_cutoff = max_cutoff

    def block(self, start: int, stop: int, width: int) -> np.ndarray:
        """The ideal gains of users start..stop-1 at ranks 1..width."""
        return self._gains(self.ends[start:stop], width)

    def _gains(self, ends: np.ndarray, width: int) -> np.ndarray:
        positions = np.arange(width)
        level = np.zeros((len(ends), width), dtype=np.intp)
        for end in ends.T:
            level += positions >= end[:, None]
        return self.levels[level]

    def distinct_lists(self, most: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(each user's list number, the ideal gains of each distinct list) for the top
        max_cutoff ranks; None when there are more than ``most`` distinct lists.

        Two users have the same top list when their level ends, capped at max_cutoff, are
        equal; the capped ends are packed into one integer per user to find the lists."""
        capped = np.minimum(self.ends, self.max_cutoff)
        bits = bits_for(self.max_cutoff + 1)
        if capped.shape[1] * bits > 63:
            return None
        key = np.zeros(len(capped), dtype=np.int64)
        for column in capped.T:
            key <<= bits
            key |= column
        list_of_user, keys = pd.factorize(key)
        if len(keys) > most:
            return None
        list_ends = np.empty((len(keys), capped.shape[1]), dtype=np.int64)
        for level in range(capped.shape[1] - 1, -1, -1):
            list_ends[:, level] = keys & ((1 << bits) - 1)
            keys >>= bits
        return list_of_user.astype(np.int64), self._gains(list_ends, self.max_cutoff)


class TopGains:
    """Each user's ground-truth gains sorted descending, the first ``max_cutoff`` of them,
    stored sparsely (user, rank, gain) sorted by user (for many distinct gains)."""

    def __init__(self, user: np.ndarray, rank: np.ndarray, gain: np.ndarray, max_cutoff: int):
        self.user, self.rank, self.gain = user, rank, gain
        self.max_cutoff = max_cutoff

    def block(self, start: int, stop: int, width: int) -> np.ndarray:
        """The ideal gains of users start..stop-1 at ranks 1..width."""
        lo, hi = np.searchsorted(self.user, [start, stop])
        user, rank, gain = self.user[lo:hi], self.rank[lo:hi], self.gain[lo:hi]
        within = rank < width
        dense = np.zeros((stop - start, width), dtype=np.float64)
        dense[user[within] - start, rank[within]] = gain[within]
        return dense


def top_gains_by_user(
    user_index: np.ndarray, gains: np.ndarray, max_cutoff: int, n_users: int
) -> LevelCounts | TopGains:
    """Each user's positive ground-truth gains, highest first, cut at ``max_cutoff``.

    With at most :data:`MAX_LEVELS` distinct gains, they are counted per user and level
    (one pass, a block of rows at a time); otherwise (user, gain level) is packed into one
    integer, highest level first within a user, and sorted with a plain sort (much faster
    than a lexsort).
    """
    positive = gains > 0
    levels = np.sort(pd.unique(gains[positive]))[::-1]  # hashing, not sorting every gain
    n_levels = len(levels)
    if n_levels <= MAX_LEVELS:
        counts = np.zeros(n_users * n_levels, dtype=np.int64)
        for start in range(0, len(gains), ROWS_PER_BLOCK):
            rows = slice(start, start + ROWS_PER_BLOCK)
            counts += np.bincount(packed_levels(user_index[rows], gains[rows],
                                                 positive[rows], levels),
                                  minlength=n_users * n_levels)
        return LevelCounts(counts.reshape(n_users, n_levels), levels, max_cutoff)
    packed = packed_levels(user_index, gains, positive, levels)
    packed.sort()
    users = packed // n_levels
    values = levels[packed % n_levels]
    new_user = np.flatnonzero(np.diff(users, prepend=-1) != 0)
    starts = np.zeros(len(users), dtype=np.int64)
    starts[new_user] = new_user
    rank = np.arange(len(users)) - np.maximum.accumulate(starts)
    keep = rank < max_cutoff
    return TopGains(users[keep], rank[keep], values[keep], max_cutoff)


#: Ground-truth rows whose gains are counted at a time (bounds the temporaries).
ROWS_PER_BLOCK = 1 << 18


def packed_levels(user_index: np.ndarray, gains: np.ndarray, positive: np.ndarray,
                   levels: np.ndarray) -> np.ndarray:
    """user * len(levels) + level of each positive gain (level 0 the highest of ``levels``,
    which are distinct and descending), as int64."""
    n_levels = len(levels)
    # Each gain's level, 0 for the highest.
    level_of_row = n_levels - 1 - np.searchsorted(levels[::-1], gains[positive])
    packed = user_index[positive].astype(np.int64)
    packed *= n_levels
    packed += level_of_row
    return packed




def bits_for(count: int) -> int:
    """Bits needed to hold the numbers 0 .. count - 1 (at least 1)."""
    return max(int(count - 1).bit_length(), 1)
