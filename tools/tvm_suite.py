"""Run TVM's own test files and gallery tutorials here, unchanged but for the import rewrite.

The files are taken from a git copy of apache/tvm at a tag into a scratch folder outside the
project, rewritten by ``tebound.rewrite``, and run there: the tests with pytest, group by group,
the tutorials each in its own process. Nothing of TVM's is kept in the project.

    python tools/tvm_suite.py --tvm PATH/TO/tvm.git --out /tmp/tvm013 [--group te --group arith]
                              [--no-conftest] [--tutorials] [--timeout 300] [--workers 2]

A test function counts once: passed when every one of its parametrized cases passes or skips,
failed otherwise; a file that stops at import fails all its functions. Functions that use relay
or TVMScript are counted apart. The report goes to OUT/report.md and standard output.

The tests run under the Python that runs this script, which needs pytest-timeout and, as TVM
v0.13's files were written for it, NumPy 1 (they use ``np.infty`` and ``np.reshape(newshape=)``,
which NumPy 2 removed): a virtual environment with ``pip install "numpy<2" pytest-timeout rsa scipy``
and this project (``rsa``: TVM's ``test_topi_lstm.py`` imports it, unused; ``scipy``: the sparse
operators' tests build their matrices with it). The report names the NumPy it ran with.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tebound.rewrite import rewrite  # noqa: E402

UNIT = "tests/python/unittest"
TOPI = "tests/python/topi/python"
GROUPS = {
    "te": [f"{UNIT}/test_te_*.py"],
    "arith": [f"{UNIT}/test_arith_{name}.py" for name in (
        "intset", "canonical_simplify", "rewrite_simplify", "const_int_bound", "modular_set", "deduce_bound",
        "detect_linear_equation", "solve_linear_equations", "solve_linear_inequality", "domain_touched",
        "iter_affine_map")],
    "autotvm": [f"{UNIT}/test_autotvm_*.py"],
    "auto_scheduler": [f"{UNIT}/test_auto_scheduler_*.py"],
    "topi": [f"{TOPI}/test_topi_{name}.py" for name in (
        "conv2d_nchw", "conv2d_nhwc", "dense", "softmax", "pooling", "reduce", "transform", "broadcast", "math",
        "batch_matmul", "relu", "upsampling", "depthwise_conv2d", "conv2d_transpose_nchw", "lrn", "sort", "matmul",
        "einsum")],
    # The rest of TOPI's operator tests that need no relay: the operators users take one by one.
    "topi_more": [f"{TOPI}/test_{name}.py" for name in (
        "fifo_buffer", "topi_argwhere", "topi_basic", "topi_batch_norm", "topi_batch_to_space_nd", "topi_bnn",
        "topi_clip", "topi_conv1d", "topi_conv1d_transpose_ncw", "topi_conv2d_NCHWc", "topi_conv2d_hwcn",
        "topi_conv2d_int8", "topi_conv2d_winograd", "topi_conv3d_ncdhw", "topi_conv3d_ndhwc",
        "topi_conv3d_transpose_ncdhw", "topi_correlation", "topi_deformable_conv2d", "topi_depth_to_space",
        "topi_depthwise_conv2d_back_input", "topi_depthwise_conv2d_back_weight", "topi_dft", "topi_dilate",
        "topi_group_conv2d", "topi_group_conv2d_transpose", "topi_group_norm", "topi_image", "topi_instance_norm",
        "topi_layer_norm", "topi_loss", "topi_lstm", "topi_reorg", "topi_scan", "topi_scatter",
        "topi_searchsorted", "topi_space_to_batch_nd", "topi_space_to_depth", "topi_sparse", "topi_tensor",
        "topi_unique", "topi_util", "topi_vision")],
    "tir_transform": [f"{UNIT}/test_tir_transform_{name}.py" for name in (
        "simplify", "loop_partition", "storage_rewrite", "narrow_datatype", "unroll_loop", "hoist_if",
        "inject_virtual_thread", "inject_double_buffer", "storage_flatten", "remove_no_op", "thread_sync",
        "vectorize", "lower_warp_memory")],
    # A te program's trip through the CPU code generators, the ir_builder, buffers and the tir ops.
    "codegen": [f"{UNIT}/test_{name}.py" for name in (
        "target_codegen_llvm", "target_codegen_c_host", "target_codegen_extern", "target_codegen_bool",
        "target_codegen_static_init", "tir_ir_builder", "tir_buffer", "lower_build", "tir_intrin", "tir_ops")],
    "integration": [f"tests/python/integration/test_{name}.py" for name in ("dot", "ewise", "gemm", "reduce", "scan")],
    # Other unit tests of te programs: layout transforms, the GPU code checks, CUDA code, tracing.
    "te_more": [f"{UNIT}/test_{name}.py" for name in (
        "transform_layout", "tir_analysis_verify_gpu_code", "tir_analysis_verify_memory", "runtime_trace",
        "target_codegen_cuda")],
}
SUPPORT = ["conftest.py", "tests/python/conftest.py", f"{TOPI}/common.py"]
GALLERY = "gallery"
TUTORIALS = [
    "how_to/work_with_schedules/extern_op.py", "how_to/work_with_schedules/intrin_math.py",
    "how_to/work_with_schedules/reduction.py", "how_to/work_with_schedules/scan.py",
    "how_to/work_with_schedules/schedule_primitives.py", "how_to/work_with_schedules/tedd.py",
    "how_to/work_with_schedules/tensorize.py", "how_to/work_with_schedules/tuple_inputs.py",
    "how_to/optimize_operators/opt_gemm.py", "tutorial/tensor_expr_get_started.py",
    "tutorial/autotvm_matmul_x86.py", "tutorial/auto_scheduler_matmul_x86.py",
    "how_to/tune_with_autoscheduler/tune_conv2d_layer_cuda.py",
    "how_to/optimize_operators/opt_conv_tensorcore.py", "how_to/optimize_operators/opt_conv_cuda.py",
    "how_to/tune_with_autotvm/tune_conv2d_cuda.py", "tutorial/intro_topi.py",
    "how_to/extend_tvm/low_level_custom_pass.py",
]
# What a tutorial tells its reader to uncomment, as the reader would.
UNCOMMENT = {"how_to/tune_with_autoscheduler/tune_conv2d_layer_cuda.py": ["# task.tune(tune_option)"],
             "how_to/tune_with_autotvm/tune_conv2d_cuda.py": [
                 "# tuner = autotvm.tuner.XGBTuner(task)", '# record_file = "conv2d.log"', "# tuner.tune(",
                 "#     n_trial=5,", "#     measure_option=measure_option,",
                 "#     callbacks=[autotvm.callback.log_to_file(record_file)],", "# )"]}
APART = re.compile(r"\brelay\b|tvm\.script|\bT\.prim_func\b|\bI\.ir_module\b")
#: For the groups written in TVMScript, which we read: what needs TensorIR, relay or a GPU.
APART_SCRIPT = re.compile(r"\brelay\b|\bT\.block\b|requires_gpu|requires_cuda|requires_tensorcore")
SCRIPT_GROUPS = {"tir_transform", "codegen"}


def git(tvm: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={tvm}", *args], check=True, capture_output=True, text=True).stdout


def extract(tvm: Path, ref: str, out: Path, patterns: list[str]) -> list[str]:
    """Write the files of *ref* matching *patterns* under *out*, rewritten; their paths."""
    names = git(tvm, "ls-tree", "-r", "--name-only", ref).split("\n")
    chosen = [n for n in names if any(Path(n).match(p) and n.count("/") == p.count("/") for p in patterns)]
    for name in chosen:
        text = git(tvm, "show", f"{ref}:{name}")
        for line in UNCOMMENT.get(name[len(GALLERY) + 1:], []):
            text = text.replace(line, line.replace("# ", "", 1))
        target = out / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rewrite(text) if name.endswith(".py") else text)
    return chosen


def test_functions(path: Path, script: bool = False) -> dict[str, bool]:
    """The test functions of a file (``f`` or ``Class::f``), each with whether it is apart: it
    uses relay or TVMScript, or (*script*, a group written in TVMScript) TensorIR, relay or a GPU."""
    source = path.read_text()
    tree = ast.parse(source)
    # A file importing TVMScript's parser, a module of relay's or relay's graph tuner is theirs
    # throughout; `from tvm import relay` alone imports, and fails only where it is used.
    # relay.backend's Runtime and Executor are records tvm.build takes, not relay's compilers.
    imports = r"relay\.(?!backend import)|graph_tuner" if script else r"tvm\.script|relay\.|graph_tuner"
    apart_file = any(re.search(imports, ast.get_source_segment(source, node) or "")
                     for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom))
    # ...and, in a group written in TVMScript, so is a file that defines TensorIR (T.block) at
    # module level: the file cannot import without it.
    apart_file = apart_file or script and any(
        re.search(r"\bT\.block\b", ast.get_source_segment(source, node) or "")
        for node in tree.body if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test"))
    pattern = APART_SCRIPT if script else APART
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def methods(cls: ast.ClassDef) -> list[ast.FunctionDef]:
        """The test methods of *cls*, with those it inherits from classes of the same file."""
        own = [item for item in cls.body if isinstance(item, ast.FunctionDef) and item.name.startswith("test")]
        names = {m.name for m in own}
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes:
                own += [m for m in methods(classes[base.id]) if m.name not in names]
            elif isinstance(base, ast.Attribute) and base.attr == "CompareBeforeAfter" and "test_compare" not in names:
                own.append(ast.FunctionDef(name="test_compare"))  # the test tvm.testing's class gives
        return own

    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            found[node.name] = apart_file or bool(pattern.search(ast.get_source_segment(source, node)))
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for item in methods(node):
                found[f"{node.name}::{item.name}"] = apart_file or bool(
                    pattern.search(ast.get_source_segment(source, node)))
    return found


def outcomes(junit: Path, files: list[str]) -> tuple[dict, dict]:
    """Per (file, function): the worst outcome of its cases, and the first failure's message."""
    order = {"passed": 0, "skipped": 1, "failed": 2}
    by_module = {f[:-3].replace("/", "."): f for f in files}
    result, why = {}, {}
    if not junit.exists():
        return result, why
    for case in ET.parse(junit).getroot().iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        parts = classname.split(".")
        owner = None
        if classname in by_module:
            module, key = classname, name.split("[")[0]
        elif ".".join(parts[:-1]) in by_module:
            module, owner = ".".join(parts[:-1]), parts[-1]
            key = f"{owner}::{name.split('[')[0]}"
        else:
            continue
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                why.setdefault((by_module[module], key), (child.get("message") or "").split("\n")[0][:200])
            elif child.tag == "skipped" and outcome == "passed":
                outcome = "skipped"
        k = (by_module[module], key)
        if order[outcome] >= order[result.get(k, "passed")]:
            result[k] = outcome
    return result, why


def run_group(python: str, out: Path, group: str, files: list[str], args) -> tuple[dict, dict]:
    junit = out / f"junit-{group}.xml"
    junit.unlink(missing_ok=True)
    cmd = [python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rN", "--continue-on-collection-errors",
           f"--junitxml={junit}", f"--timeout={args.timeout}", *files]
    if args.workers > 1:
        cmd[3:3] = ["-n", str(args.workers)]
    if args.no_conftest:
        cmd[3:3] = ["--noconftest"]
    with open(out / f"pytest-{group}.log", "w") as log:
        subprocess.run(cmd, cwd=out, stdout=log, stderr=subprocess.STDOUT)
    return outcomes(junit, files)


def count(out: Path, files: list[str], result: dict, script: bool = False) -> tuple[Counter, list, list]:
    tally, failures, aside = Counter(), [], []
    for f in files:
        for key, apart in test_functions(out / f, script).items():
            outcome = result.get((f, key), "failed")
            if apart:
                tally["apart"] += 1
                tally[f"apart {outcome}"] += 1
                aside.append(f"{f}::{key}")
            else:
                tally[outcome] += 1
                if outcome == "failed":
                    failures.append((f, key))
    return tally, failures, aside


def run_tutorials(python: str, out: Path, timeout: int) -> list[tuple[str, str]]:
    rows = []
    for name in TUTORIALS:
        path = out / GALLERY / name
        log = out / f"tutorial-{path.stem}.log"
        try:
            done = subprocess.run([python, path.name], cwd=path.parent, capture_output=True, text=True,
                                  timeout=timeout)
            log.write_text(done.stdout + done.stderr)
            last = (done.stderr.strip().split("\n") or [""])[-1][:160]
            rows.append((name, "exit 0" if done.returncode == 0 else f"exit {done.returncode}: {last}"))
        except subprocess.TimeoutExpired:
            rows.append((name, f"timed out after {timeout} s"))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tvm", type=Path, required=True, help="apache/tvm's git directory")
    parser.add_argument("--ref", default="refs/tags/v0.13.0")
    parser.add_argument("--out", type=Path, required=True, help="a scratch folder outside the project")
    parser.add_argument("--group", action="append", choices=sorted(GROUPS))
    parser.add_argument("--no-conftest", action="store_true", help="run without TVM's conftest.py files")
    parser.add_argument("--tutorials", action="store_true", help="run the gallery tutorials too")
    parser.add_argument("--only-tutorials", action="store_true", help="run the gallery tutorials and no test")
    parser.add_argument("--timeout", type=int, default=300, help="seconds a test (or a tutorial) may run")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    out = args.out.resolve()
    if ROOT in out.parents or out == ROOT:
        parser.error("--out must be outside the project: TVM's files never enter it")
    out.mkdir(parents=True, exist_ok=True)
    extract(args.tvm, args.ref, out, SUPPORT)
    import numpy

    lines = [f"# TVM's own tests at {args.ref}, after the import rewrite"
             + (" (without TVM's conftest.py)" if args.no_conftest else ""), "",
             f"Python {sys.version.split()[0]}, NumPy {numpy.__version__}.", "",
             "| group | functions | passed | skipped | failed | pass or skip | apart (passed): relay/TVMScript, "
             "or for tir_transform relay/TensorIR/GPU |",
             "|---|---|---|---|---|---|---|"]
    failed_lines: list[str] = []
    apart_lines: list[str] = []
    for group in [] if args.only_tutorials else args.group or list(GROUPS):
        files = extract(args.tvm, args.ref, out, GROUPS[group])
        result, why = run_group(sys.executable, out, group, files, args)
        tally, failures, aside = count(out, files, result, group in SCRIPT_GROUPS)
        apart_lines += [f"- {name}" for name in aside]
        total = tally["passed"] + tally["skipped"] + tally["failed"]
        share = 100 * (tally["passed"] + tally["skipped"]) / total if total else 0
        lines.append(f"| {group} | {total} | {tally['passed']} | {tally['skipped']} | {tally['failed']} | "
                     f"{share:.0f}% | {tally['apart']} ({tally['apart passed']}) |")
        by_file = defaultdict(list)
        for f, key in failures:
            by_file[f].append(f"{key}: {why.get((f, key), 'not collected (the file stops at import)')}")
        for f, items in sorted(by_file.items()):
            failed_lines += [f"- {f}"] + [f"  - {item}" for item in items]
    if args.tutorials or args.only_tutorials:
        extract(args.tvm, args.ref, out, [f"{GALLERY}/{t}" for t in TUTORIALS])
        lines += ["", "| tutorial | result |", "|---|---|"]
        lines += [f"| {name} | {res} |" for name, res in run_tutorials(sys.executable, out, args.timeout)]
    report = "\n".join(lines + ["", "## Failed", ""] + failed_lines
                       + ["", "## Counted apart: relay or TVMScript; for tir_transform, relay, TensorIR or a GPU", ""]
                       + apart_lines) + "\n"
    (out / "report.md").write_text(report)
    sys.stdout.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
