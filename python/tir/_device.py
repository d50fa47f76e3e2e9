"""Arrays in GPU memory, for modules compiled with target="nvptx64".

The host wrapper of a GPU build (docs/gpu.md) takes descriptors whose
pointers are device pointers, in the CUDA primary context, which CuPy and
PyTorch use too. An array reaches it through `__cuda_array_interface__`
(CuPy, PyTorch CUDA tensors, Numba) or, failing that, DLPack on a CUDA
device (converted by CuPy or PyTorch, whichever is installed, without a
copy). Nothing here copies data between host and device except the
interpreter backend, which runs on the host by nature.

What a package offers to allocate, copy and convert is looked up on the
array's own package (`empty`, `asarray`, `asnumpy`, as CuPy spells
them), with PyTorch's spelling as the one special case.
"""

import sys

import numpy as np

from ._errors import ArgumentError

# DLPack's device type of CUDA memory (kDLCUDA) and of CUDA managed memory.
_DLPACK_CUDA = (2, 13)


def _package_of(obj):
    return sys.modules.get(type(obj).__module__.partition(".")[0])


def _is_torch(obj):
    return type(obj).__module__.partition(".")[0] == "torch"


def is_device_array(v):
    """Whether v lives in GPU memory (a CUDA array interface, or DLPack on
    a CUDA device)."""
    if isinstance(v, (np.ndarray, np.generic)):
        return False
    if _has_cai(v):
        return True
    dev = getattr(v, "__dlpack_device__", None)
    if dev is None:
        return False
    try:
        return int(dev()[0]) in _DLPACK_CUDA
    except Exception:
        return False


def _has_cai(v):
    try:
        return hasattr(v, "__cuda_array_interface__")
    except Exception:
        # PyTorch raises for a tensor that requires grad: it is one still.
        return _is_torch(v) and getattr(v, "is_cuda", False)


def _with_cai(v, what):
    """v itself when it has a CUDA array interface, else a view of it (no
    copy) through DLPack by CuPy or PyTorch."""
    if _has_cai(v):
        return v
    for name in ("cupy", "torch"):
        try:
            mod = __import__(name)
        except ImportError:
            continue
        try:
            return mod.from_dlpack(v)
        except Exception as e:
            raise ArgumentError("%s: %s cannot view this %s through DLPack: %s"
                                % (what, name, type(v).__name__, e)) from None
    raise ArgumentError("%s: a %s in GPU memory without __cuda_array_interface__ needs CuPy or PyTorch to be"
                        " viewed through DLPack, and neither is installed" % (what, type(v).__name__))


class DeviceArray:
    """The geometry of an array in GPU memory: a pointer, shape, byte
    strides and element type, read from its `__cuda_array_interface__`.
    Indexing with slices indexes the array itself (its package makes the
    view) and describes the result."""

    def __init__(self, obj, what):
        obj = _with_cai(obj, what)
        try:
            cai = obj.__cuda_array_interface__
        except Exception as e:
            hint = " (call .detach() on a tensor that requires grad)" if _is_torch(obj) else ""
            raise ArgumentError("%s: cannot read its __cuda_array_interface__: %s%s" % (what, e, hint)) from None
        self.obj = obj
        self.shape = tuple(int(n) for n in cai["shape"])
        try:
            self.dtype = np.dtype(cai["typestr"])
        except TypeError:
            raise ArgumentError("%s: element type %r is not one NumPy knows" % (what, cai["typestr"])) from None
        self.ptr, self.readonly = int(cai["data"][0] or 0), bool(cai["data"][1])
        if cai.get("mask") is not None:
            raise ArgumentError("%s: a masked CUDA array (its interface has a mask) cannot be passed" % what)
        self.itemsize = self.dtype.itemsize
        self.ndim = len(self.shape)
        self.size = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        strides = cai.get("strides")
        if strides is None:
            strides, step = [], self.itemsize
            for n in reversed(self.shape):
                strides.append(step)
                step *= max(n, 1)
            strides.reverse()
        self.strides = tuple(int(s) for s in strides)

    def __getitem__(self, index):
        return DeviceArray(self.obj[index], "a view")

    def byte_range(self):
        """[lo, hi) of the bytes the array can touch."""
        lo = self.ptr + sum(min(0, (n - 1) * s) for n, s in zip(self.shape, self.strides))
        hi = self.ptr + sum(max(0, (n - 1) * s) for n, s in zip(self.shape, self.strides)) + self.itemsize
        return lo, hi


def layout_problem(a):
    """Why the ABI cannot describe a device array's memory, or None."""
    if a.size == 0:
        return None
    if a.ptr % a.itemsize:
        return "it is misaligned"
    for s, n in zip(a.strides, a.shape):
        if n > 1 and (s < 0 or s % a.itemsize):
            return "its strides %s are negative or not whole elements" % (a.strides,)
    if a.ndim and a.shape[-1] > 1 and a.strides[-1] != a.itemsize:
        return ("its last dimension is not contiguous (stride %d bytes for %d-byte elements)"
                % (a.strides[-1], a.itemsize))
    return None


def overlap(a, b):
    if not a.size or not b.size:
        return False
    (alo, ahi), (blo, bhi) = a.byte_range(), b.byte_range()
    return alo < bhi and blo < ahi


def _torch_dtype(dtype):
    import torch
    return {"bool": torch.bool}.get(dtype.name) or getattr(torch, dtype.name)


def empty(like, shape, dtype):
    """A new array of like's package on like's device."""
    if _is_torch(like):
        import torch
        return torch.empty(tuple(shape), dtype=_torch_dtype(np.dtype(dtype)), device=like.device)
    pkg = _package_of(like)
    if pkg is None or not hasattr(pkg, "empty"):
        raise ArgumentError("cannot allocate a result like a %s: pass out=" % type(like).__name__)
    return pkg.empty(tuple(shape), dtype=np.dtype(dtype))


def to_host(obj):
    """A NumPy copy of a device array (for the interpreter backend)."""
    if _is_torch(obj):
        return obj.detach().cpu().numpy()
    return np.asarray(_package_of(obj).asnumpy(obj))


def from_host(a, like):
    """A device array of like's kind holding a copy of the NumPy array a."""
    if _is_torch(like):
        import torch
        # np.ascontiguousarray would make a 0-d array 1-d, and the ABI
        # passes a 0-d tensor as a plain pointer, not a descriptor.
        return torch.from_numpy(np.array(a, order="C", copy=True)).to(like.device)
    return _package_of(like).asarray(a)


def assign(obj, a):
    """obj[...] = the NumPy array a, copied to the device."""
    obj[...] = from_host(a, obj)
