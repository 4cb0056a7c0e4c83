"""TVM's ``tvm.autotvm.feature`` (see :mod:`tune.autotvm.feature`)."""

from tune.autotvm.feature import (
    flatten_itervar_feature,
    get_buffer_curve_sample_flatten,
    get_flatten_name,
    get_itervar_feature,
    get_itervar_feature_flatten,
)

__all__ = ["flatten_itervar_feature", "get_buffer_curve_sample_flatten", "get_flatten_name", "get_itervar_feature",
           "get_itervar_feature_flatten"]
