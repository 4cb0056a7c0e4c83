"""Compiling generated C with the system compiler, and caching the result.

The shared object is keyed by a hash of the source, the compiler, its flags and what
``-march=native`` means on this CPU, in the user's kernel cache
(:mod:`lower.backend.c.kernel_cache`): building the same schedule twice compiles once.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

from lower.backend.c.kernel_cache import cached_object
from lower.errors import LoweringError

#: Without fast-math, and without contracting ``a * b + c`` into one fused multiply-add (GCC's
#: default for GNU C, which rounds once where NumPy and the Python target round twice: 24% of a
#: float32 ``a*b + c*d`` differed). On x86, full-width AVX vectors: some CPUs' tuning (AMD Zen)
#: prefers half-width ones, which measured 15-20% slower on the tiled matmul benchmark. Without
#: GCC's predictive commoning, which keeps a stencil's rows in registers from one iteration to
#: the next: a vector row of 8 registers spills them to the stack, and the 3x3 blur ran 16%
#: slower with it (1.88 against 1.57 ms; the matmuls, conv2d and softmax unchanged).
FLAGS = ("-O3", "-march=native", "-std=gnu11", "-fPIC", "-shared", "-fopenmp", "-ffp-contract=off",
         "-fno-predictive-commoning",
         *(("-mprefer-vector-width=256",) if platform.machine() in ("x86_64", "AMD64") else ()))
#: What ``build(..., fast_math=True)`` adds: GCC may reassociate, contract into fused
#: multiply-adds and assume no NaN or infinity (results then differ from NumPy's in the last bits).
FAST_MATH = ("-ffast-math", "-ffp-contract=fast")
#: What ``build(..., fp_contract=True)`` changes: ``a * b + c`` may become one fused multiply-add
#: (one rounding, as TVM's LLVM code has it), and nothing else of fast math.
CONTRACT = "-ffp-contract=fast"


def compile_flags(fast_math: bool = False, fp_contract: bool = False) -> tuple[str, ...]:
    """The compiler's flags for a kernel: :data:`FLAGS`, with fast math or contraction."""
    if fast_math:
        return (*FLAGS, *FAST_MATH)
    if fp_contract:
        return tuple(CONTRACT if f == "-ffp-contract=off" else f for f in FLAGS)
    return FLAGS


#: Seconds a compile may take before the build gives up on it.
COMPILE_TIMEOUT = 600.0


@cache
def find_compiler() -> str | None:
    """The C compiler: ``$CC``, else ``cc``, ``gcc`` or ``clang`` on the path; None if none."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and (path := shutil.which(name)):
            return path
    return None


@cache
def native_target() -> str:
    """What ``-march=native`` means on this machine, as the compiler resolves it (the CPU's
    feature set): part of a kernel's cache key, so that a cache shared between machines (a home
    directory on a network) never gives one machine code built for another's instructions."""
    cc = find_compiler()
    if cc is None:
        return ""
    try:
        return subprocess.run([cc, "-march=native", "-Q", "--help=target"], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return platform.machine()


@cache
def native_vector_bytes() -> int:
    """The width of the vectors the generated code uses: AVX-512's 64 bytes where the CPU has
    it, else AVX2's 32, else 16 (SSE, NEON). On AMD Zen 4, which splits 512-bit operations in
    two, 64 measured as fast or faster than 32 (fewer instructions, twice the registers: the
    packed matmul 2.0 -> 1.6 ms, softmax with rfactor 1.9 -> 1.4, the blur 2.1 -> 1.8), except
    where a vector loop adds into memory (see :func:`splits_wide_vectors`)."""
    if find_compiler() is None or platform.machine() not in ("x86_64", "AMD64"):
        return 16
    out = native_target()
    enabled = {parts[0] for parts in (line.split() for line in out.splitlines())
               if len(parts) >= 2 and parts[-1] == "[enabled]"}
    if "-mavx512f" in enabled:
        return 64
    return 32 if "-mavx2" in enabled else 16


@cache
def splits_wide_vectors() -> bool:
    """Whether the CPU runs a 512-bit operation as two 256-bit halves (AMD Zen 4, family 25):
    there a vector loop that loads, adds to and stores back an array in memory (the tiled
    matmul's C += A * B) ran 1.4x slower with 64-byte vectors than with 32."""
    try:
        with open("/proc/cpuinfo") as f:
            head = f.read(4096)
    except OSError:
        return False
    fields = dict(line.split(":", 1) for line in head.splitlines() if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return fields.get("vendor_id") == "AuthenticAMD" and fields.get("cpu family") == "25"


def vector_registers() -> int:
    """How many vector registers the generated code may use: 32 with AVX-512 or on AArch64,
    else 16."""
    return 32 if "avx512f" in cpu_features() or platform.machine() in ("aarch64", "arm64") else 16


#: The instruction sets a performance report names, in this order.
REPORTED_FEATURES = ("sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512vnni", "neon", "sve")


def cpu_features() -> frozenset[str]:
    """The instruction sets the compiler enables for ``-march=native`` on this machine (``avx2``,
    ``fma``, ``avx512f``...): what the CPU really has, where its model name may mislead (a
    Zen 4 part sold without AVX-512 is still ``znver4``)."""
    found = set()
    for line in native_target().splitlines():
        match = re.match(r"\s+-m([\w.-]+)\s+\[enabled\]", line)
        if match:
            found.add(match.group(1))
    return frozenset(found)


def features_line() -> str:
    """One line for a benchmark's header: the CPU's reported instruction sets."""
    have = cpu_features()
    return "CPU features (gcc -march=native): " + (" ".join(f for f in REPORTED_FEATURES if f in have) or "none found")


def compile_c(source: str, fast_math: bool = False, fp_contract: bool = False) -> Path:
    """The shared object of *source*, compiled now or found in the cache; *fast_math* adds
    :data:`FAST_MATH` to the flags, *fp_contract* allows :data:`CONTRACT` only.

    :raises LoweringError: without a compiler, or quoting the compiler's first error and the
        source line it names.
    """
    cc = find_compiler()
    if cc is None:
        raise LoweringError("build: no C compiler found (set CC, or install cc); use target='python'")
    flags = compile_flags(fast_math, fp_contract)
    # Fast-math kernels are linked without crtfastmath (see build); the marker keeps those once
    # linked with it out of the key.
    link = ("linked-without-crtfastmath",) if fast_math else ()
    key = hashlib.sha256("\0".join([cc, *flags, *link, native_target(), source]).encode()).hexdigest()[:32]

    def build(out: Path) -> None:
        src = out.with_name("kernel.c")
        src.write_text(source)
        if fast_math:
            # Linking with -ffast-math adds GCC's crtfastmath.o, whose constructor sets the CPU's
            # flush-to-zero modes for the whole process when the kernel is loaded (NumPy's
            # subnormals then read as 0): compile with it, link without it.
            obj = out.with_name("kernel.o")
            run([cc, *(f for f in flags if f != "-shared"), "-c", "-o", str(obj), str(src)])
            run([cc, "-shared", "-fopenmp", "-o", str(out), str(obj), "-lm"])
        else:
            run([cc, *flags, "-o", str(out), str(src), "-lm"])

    def run(command: list[str]) -> None:
        run_compiler(command, source)
    return cached_object(key, build)


def run_compiler(command: list[str], source: str = "") -> None:
    """Runs the C compiler *command* (``command[0]`` is the compiler).

    :raises LoweringError: if it cannot run, overruns :data:`COMPILE_TIMEOUT`, or fails
        (quoting its first error and the line of *source* it names).
    """
    cc = command[0]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=COMPILE_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise LoweringError(f"build: the C compiler ({cc}) did not finish within {COMPILE_TIMEOUT:g} s; "
                            "a smaller kernel (fewer unrolled loops) compiles faster, or use "
                            "target='python'") from None
    except OSError as err:
        raise LoweringError(f"build: cannot run the C compiler {cc}: {err.strerror}; set CC to a working "
                            "compiler, or use target='python'") from None
    if done.returncode != 0:
        raise LoweringError(_compile_error(done.stderr, source) if source else
                            f"build: the C compiler failed: {done.stderr.strip()[:500]}")


def compile_object(source: str, fast_math: bool, path: str, fp_contract: bool = False) -> None:
    """Compiles *source* into the object file *path*, with the flags :func:`compile_c` uses."""
    cc = find_compiler()
    if cc is None:
        raise LoweringError("build: no C compiler found (set CC, or install cc)")
    flags = [f for f in compile_flags(fast_math, fp_contract) if f != "-shared"]
    with tempfile.TemporaryDirectory() as folder:
        src = Path(folder) / "kernel.c"
        src.write_text(source)
        run_compiler([cc, *flags, "-c", "-o", os.fspath(path), str(src)], source)


def link_shared(output: str, objects: list[str], options: list[str] | None = None, cc: str | None = None) -> None:
    """Links object files into the shared object *output* (with OpenMP and libm, without
    fast math's crtfastmath, as :func:`compile_c` links)."""
    compiler = cc or find_compiler()
    if compiler is None:
        raise LoweringError("create_shared: no C compiler found (set CC, or install cc)")
    run_compiler([compiler, "-shared", "-fopenmp", "-o", os.fspath(output), *map(os.fspath, objects),
                  *(options or []), "-lm"])


def _compile_error(stderr: str, source: str) -> str:
    lines = source.splitlines()
    for m in re.finditer(r"kernel\.c:(\d+):\d+: (?:fatal )?error: (.*)", stderr):
        number = int(m[1])
        where = lines[number - 1].strip() if 0 < number <= len(lines) else ""
        return f"build: the C compiler refused the generated code: {m[2]} (line {number}: {where})"
    return f"build: the C compiler failed: {stderr.strip()[:2000]}"
