"""A stand-in for the `torch` package, written for phasegate's corpus generator.

The Triton kernels of liger-kernel and fla-core live in modules that `import torch` at the
top and use it for their host-side wrappers (autograd Functions, tensor allocation). The
`@triton.jit` kernels themselves never touch torch, and compiling them ahead of time with
`triton.compile` needs no GPU and no torch. Installing this finder first lets those modules
import on a CPU-only machine without the multi-gigabyte CUDA build of torch: every `torch.*`
module resolves to a permissive placeholder. No torch code is involved in any PTX.
"""
import sys, types, importlib.abc, importlib.machinery

class _D:
    """Permissive stand-in object."""
    def __init__(self, name="torch.x"): self._n = name
    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"): raise AttributeError(k)
        return _D(self._n + "." + k)
    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k: return a[0]  # decorator use
        return _D(self._n + "()")
    def __getitem__(self, k): return _D(self._n + "[]")
    def __iter__(self): return iter(())
    def __bool__(self): return False
    def __int__(self): return 0
    def __index__(self): return 0
    def __float__(self): return 0.0
    def __len__(self): return 0
    def __eq__(self, o): return self is o
    def __hash__(self): return id(self)
    def __lt__(self, o): return False
    __le__ = __gt__ = __ge__ = __lt__
    def __or__(self, o): return self
    __ror__ = __or__
    def __add__(self, o): return self
    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __floordiv__ = __add__
    def __mro_entries__(self, bases): return (object,)
    def __repr__(self): return "<stub %s>" % self._n
    def __str__(self): return "0.0"

class _M(types.ModuleType):
    def __getattr__(self, k):
        if k.startswith("__") and k.endswith("__"): raise AttributeError(k)
        return _D(self.__name__ + "." + k)

class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name == "torch" or name.startswith("torch."):
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
    def create_module(self, spec):
        m = _M(spec.name); m.__path__ = []; return m
    def exec_module(self, m):
        if m.__name__ == "torch":
            m.__version__ = "2.9.0"
            for t in ["float16","bfloat16","float32","float64","int8","int16","int32","int64","uint8","bool","float8_e4m3fn","float8_e5m2"]:
                setattr(m, t, _D("torch." + t))
            _init = lambda self, *a, **k: None
            m.Tensor = type("Tensor", (), {"__init__": _init}); m.dtype = type("dtype", (), {"__init__": _init}); m.device = type("device", (), {"__init__": _init})
            m.Size = tuple; m.Generator = type("Generator", (), {"__init__": _init})
        elif m.__name__ == "torch.nn":
            m.Module = type("Module", (), {})
        elif m.__name__ == "torch.autograd":
            m.Function = type("Function", (), {"apply": staticmethod(lambda *a, **k: None)})
sys.meta_path.insert(0, _Finder())
