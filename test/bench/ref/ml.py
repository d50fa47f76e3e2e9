"""The ML kernels of test/bench written as NumPy users write them, f32 in
and out. numpy_driver.py calls one of them on the inputs in the kernel's
argument order; each returns its result (or a tuple of results)."""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layernorm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    return xc / np.sqrt(var + np.float32(1e-5)) * g + b


def linear(x, w, b):
    """w stored N x K (PyTorch's nn.Linear)."""
    return np.maximum(x @ w.T + b, np.float32(0))


def linear_kn(x, w, b):
    return np.maximum(x @ w + b, np.float32(0))


def conv2d_nchw(x, w):
    """im2col by a sliding-window view copied to (n, c*kh*kw, oh*ow), then
    one batched product with the M x (c*kh*kw) weights (OpenBLAS sgemm)."""
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    win = sliding_window_view(x, (kh, kw), axis=(2, 3))  # n, c, oh, ow, kh, kw
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)
    return np.matmul(w.reshape(m, c * kh * kw), cols).reshape(n, m, oh, ow)


def conv2d_nhwc(x, w):
    n, h, wd, c = x.shape
    kh, kw, _, m = w.shape
    oh, ow = h - kh + 1, wd - kw + 1
    win = sliding_window_view(x, (kh, kw), axis=(1, 2))  # n, oh, ow, c, kh, kw
    cols = win.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, kh * kw * c)
    return (cols @ w.reshape(kh * kw * c, m)).reshape(n, oh, ow, m)


def attention(q, k, v):
    s = (q @ k.transpose(0, 2, 1)) * np.float32(1 / np.sqrt(q.shape[-1]))
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ v


def bmm(x, y):
    return x @ y


def tensordot(a, b):
    return np.tensordot(a, b, axes=([1, 3], [1, 0]))


def matmul(a, b):
    return a @ b
