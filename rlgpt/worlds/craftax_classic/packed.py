"""A craftax state packed: one flat buffer per dtype of its leaves, for both JAX worlds.

Between calls the worlds keep craftax's state packed (Craftax-Classic's EnvState has 49
leaves, full Craftax's 84, in three or four dtypes), and their jitted calls unpack it on entry
and pack it on return. A jitted call's dispatch handles each argument and result leaf: a
step of full Craftax took 1.08 ms on its 84 leaves in a loop and 0.76 on four buffers,
Craftax-Classic's 0.64 to 0.93 and 0.45 (docs/validation.md, Cost). Unpacking and packing
inside the call are slices, reshapes and one concatenation per dtype in XLA, bit for bit the
same values. A host copy is the buffers fetched at once, its leaves numpy views into them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

Packed = tuple[jax.Array, ...]  # one flat buffer per dtype (`Layout.dtypes`)


class Layout(NamedTuple):
    """Where each leaf of a craftax state lies in the packed buffers."""

    treedef: Any
    dtypes: tuple[np.dtype, ...]  # one buffer each
    slots: tuple[tuple[int, int, int, tuple[int, ...]], ...]  # per leaf: buffer, start, end, shape

    @classmethod
    def of(cls, make: Callable[[jax.Array], Any]) -> Layout:
        """The layout of the state `make(key)` returns (traced, not run)."""
        leaves, treedef = jax.tree.flatten(jax.eval_shape(make, jax.random.PRNGKey(0)))
        dtypes = tuple(sorted({np.dtype(leaf.dtype) for leaf in leaves}, key=str))
        ends = [0] * len(dtypes)
        slots = []
        for leaf in leaves:
            b, n = dtypes.index(np.dtype(leaf.dtype)), int(np.prod(leaf.shape))
            slots.append((b, ends[b], ends[b] + n, tuple(leaf.shape)))
            ends[b] += n
        return cls(treedef, dtypes, tuple(slots))

    def pack(self, state: Any, xp: Any = jnp) -> tuple[Any, ...]:
        """A state's leaves in their buffers, with jax.numpy (inside a jitted call) or numpy
        (`xp`); each leaf takes its buffer's dtype."""
        leaves = jax.tree.leaves(state)
        if len(leaves) != len(self.slots):
            raise ValueError(f"a craftax state has {len(self.slots)} leaves, not {len(leaves)}")
        parts: list[list[Any]] = [[] for _ in self.dtypes]
        for leaf, (b, *_) in zip(leaves, self.slots, strict=True):
            parts[b].append(xp.ravel(xp.asarray(leaf, self.dtypes[b])))
        return tuple(xp.concatenate(p) for p in parts)

    def unpack(self, packed: Any) -> Any:
        """The state whose leaves are slices of `packed` (views, with numpy buffers)."""
        return jax.tree.unflatten(
            self.treedef, [packed[b][s:e].reshape(shape) for b, s, e, shape in self.slots]
        )

    def host(self, packed: Packed) -> Any:
        """A packed state on the host (numpy leaves: read them, never write them)."""
        return self.unpack(tuple(np.asarray(b) for b in jax.device_get(packed)))

    def put(self, state: Any) -> Packed:
        """A state with host leaves packed on the device."""
        return tuple(jnp.asarray(b) for b in self.pack(state, np))

    def as_packed(self, state: Any) -> Packed:
        """A state (device or host leaves) packed on the device; a packed one as it is (a
        snapshot may hold either)."""
        if isinstance(state, tuple):
            return state
        return self.put(jax.device_get(state))

    def as_state(self, packed: Packed) -> Any:
        """A packed state as craftax's state on the device (tests, and code that reads it)."""
        return _unpacker(self)(packed)


@functools.cache
def _unpacker(layout: Layout) -> Callable[[Packed], Any]:
    return jax.jit(layout.unpack)
