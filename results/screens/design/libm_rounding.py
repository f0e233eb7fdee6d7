"""How often this machine's libm `tanhf` and `expf` differ from the correctly rounded f32 value
(Python's double `tanh`/`exp` rounded to f32), on random inputs: the functions `f32::tanh` and
`f32::exp` call, whose bits every recorded result depends on (docs/DESIGN.md, "The step's
arithmetic").

Usage: python3 results/screens/design/libm_rounding.py [SAMPLES]   (default 300000, seed 1)
"""
import ctypes, ctypes.util, math, random, struct, sys

libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
for name in ("tanhf", "expf"):
    getattr(libm, name).restype = ctypes.c_float
    getattr(libm, name).argtypes = [ctypes.c_float]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


n = int(sys.argv[1]) if len(sys.argv) > 1 else 300000
random.seed(1)
tanh_off = exp_off = 0
for _ in range(n):
    x = f32(random.uniform(-6, 6))
    tanh_off += libm.tanhf(x) != f32(math.tanh(x))
    y = f32(random.uniform(-20, 20))
    exp_off += libm.expf(y) != f32(math.exp(y))
print(f"tanhf differs from correctly rounded in {tanh_off}/{n} inputs in [-6, 6]; "
      f"expf in {exp_off}/{n} in [-20, 20]")
