"""TVM's ``tvm.testing``: checks (``assert_allclose``, ``assert_prim_expr_equal``,
``check_numerical_grads``), the test targets (``enabled_targets``, ``device_enabled``), the
features that skip a test where they are missing (``requires_gpu``, ``uses_gpu``, ...),
``CompareBeforeAfter`` for pass tests written in TVMScript, parametrized fixtures
(``parameter``, ``parameters``, ``fixture``, ``parametrize_targets``) and the pytest plugin
``tvm.testing.plugin`` that TVM's ``conftest.py`` loads."""

from tebound.tvm.testing.checks import assert_allclose, assert_prim_expr_equal, check_numerical_grads, main
from tebound.tvm.testing.compare import CompareBeforeAfter
from tebound.tvm.testing.features import (
    Feature,
    requires_arm_dot,
    requires_cascadelake,
    requires_cmsisnn,
    requires_corstone300,
    requires_cublas,
    requires_cuda,
    requires_cuda_compute_version,
    requires_cudagraph,
    requires_cudnn,
    requires_cutlass,
    requires_ethosn,
    requires_ethosu,
    requires_gpu,
    requires_hexagon,
    requires_libtorch,
    requires_llvm,
    requires_matrixcore,
    requires_metal,
    requires_micro,
    requires_nvcc_version,
    requires_nvptx,
    requires_opencl,
    requires_openclml,
    requires_package,
    requires_rocm,
    requires_rpc,
    requires_tensorcore,
    requires_vitis_ai,
    requires_vulkan,
    skip_if_32bit,
    skip_if_wheel_test,
    slow,
    uses_gpu,
)
from tebound.tvm.testing.fixtures import (
    exclude_targets,
    fixture,
    known_failing_targets,
    parameter,
    parameters,
    parametrize_targets,
    skip_parameterizations,
    xfail_parameterizations,
)
from tebound.tvm.testing.int_constraints import check_bool_expr_is_true, check_int_constraints_trans_consistency
from tebound.tvm.testing.targets import DEFAULT_TEST_TARGETS, device_enabled, enabled_targets
