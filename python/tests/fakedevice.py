"""A stand-in for a GPU array package (CuPy's spelling), for testing the
package's nvptx64 path under the CUDA driver emulator of the tests
(TIR_CUDA_DRIVER, test/python_test.go): there device memory is host
memory, so an Array is a NumPy array that presents itself through
__cuda_array_interface__ only (no buffer protocol, no __array__, no
DLPack), as a CuPy array does."""

import numpy as np


class Array:
    def __init__(self, a):
        self._a = a

    @property
    def __cuda_array_interface__(self):
        a = self._a
        return {"shape": a.shape, "typestr": a.dtype.str, "data": (a.ctypes.data, not a.flags.writeable),
                "strides": None if a.flags.c_contiguous else a.strides, "version": 3}

    @property
    def shape(self):
        return self._a.shape

    @property
    def ndim(self):
        return self._a.ndim

    @property
    def dtype(self):
        return self._a.dtype

    @property
    def data_ptr(self):
        return self._a.ctypes.data

    def __getitem__(self, index):
        return Array(self._a[index])

    def __setitem__(self, index, value):
        self._a[index] = value._a if isinstance(value, Array) else value


def empty(shape, dtype):
    return Array(np.empty(shape, dtype))


def asarray(a):
    return Array(np.array(a, copy=True))


def asnumpy(x):
    return np.array(x._a, copy=True)
