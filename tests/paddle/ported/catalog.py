"""Every ported case, the upstream assertions Paddle 3.3.1 itself does not meet, and what was left
out with why. `python -m tests.paddle.ported.catalog` rewrites tests/paddle/PORTED.md from here."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.paddle.ported import Case, autograd, inplace, set_value, stride, tensor_api

MODULES = (inplace, stride, set_value, tensor_api, autograd)
TABLE = Path(__file__).resolve().parents[1] / "PORTED.md"

_CONTIGUOUS_IN_PLACE = ("3.3.1's `contiguous()` makes the tensor itself contiguous and returns it (measured), "
                        "where the upstream test expects a new tensor; so the copy shares with itself")
# Upstream assertions that fail in Paddle 3.3.1 itself: the case keeps them (their FAILED verdicts are
# part of the recorded transcript, and the dialect must reproduce them).
UPSTREAM_DIFFERS: dict[str, str] = {
    "test_inplace::TestDygraphInplaceMaskedFill::test_forward_version":
        "masked_fill_ bumps inplace_version once in 3.3.1 (upstream expects twice)",
    "test_inplace::TestDygraphInplaceMaskedFill::test_backward_error": "the same: the error reports version 1",
    "test_inplace::TestDygraphInplaceMaskedFill2::test_forward_version": "as TestDygraphInplaceMaskedFill",
    "test_inplace::TestDygraphInplaceMaskedFill2::test_backward_error": "as TestDygraphInplaceMaskedFill",
    "test_inplace::TestDygraphInplaceWhereBroadcast::test_forward_version":
        "where_ bumps inplace_version once in 3.3.1 (upstream expects twice)",
    "test_inplace::TestDygraphInplaceWhereBroadcast::test_backward_error": "the same: the error reports version 1",
    "test_stride::TestStrideCPU::call_transpose": _CONTIGUOUS_IN_PLACE + ", and a later transpose of it no longer "
                                                  "shares x",
    "test_stride::TestStrideCPU::call_diagonal": _CONTIGUOUS_IN_PLACE,
    "test_stride::TestStrideCPU::call_strided_slice": _CONTIGUOUS_IN_PLACE,
    "test_stride::TestStrideCPU::call_index_select": _CONTIGUOUS_IN_PLACE,
    "test_stride::TestStrideCPU::call_unfold": _CONTIGUOUS_IN_PLACE,
    "test_stride::TestStrideCPU::call_split": "split copies in 3.3.1 (contiguous parts in their own memory); "
                                              "upstream expects strided views of x",
    "test_stride::TestStrideCPU::call_split2": "as call_split",
    "test_stride::TestStrideCPU::call_split3": "as call_split",
    "test_stride::TestStrideCPU::call_split4": "as call_split",
    "test_stride::TestStrideCPU::call_chunk": "as call_split (chunk is split)",
}

_SPECIAL = "a special function numpy does not provide (no SciPy in the project), so not in the dialect"
OUT_OF_SCOPE: list[tuple[str, str]] = [
    ("test_inplace.py::TestDygraphInplaceMaskedScatter", "masked_scatter is not in the dialect"),
    ("test_inplace.py::TestDygraphInplaceScatter", "Paddle's scatter (overwrite/accumulate rows) is not in the dialect"),
    ("test_inplace.py::TestDygraphInplaceAddMM", "addmm is not in the dialect"),
    ("test_inplace.py::TestDygraphInplaceDigamma", _SPECIAL),
    ("test_inplace.py::TestDygraphInplaceMutilgammaln", _SPECIAL),
    ("test_inplace.py::TestDygraphInplaceIgamma", _SPECIAL),
    ("test_inplace.py::TestDygraphInplaceIgammac", _SPECIAL),
    ("test_inplace.py::TestDygraphInplaceLgamma", _SPECIAL),
    ("test_inplace.py::TestDygraphInplaceI0", _SPECIAL),
    ("test_inplace.py::TestDygraphInplacePolygamma", _SPECIAL),
    ("test_inplace.py::TestDygraphInplaceGcd", "gcd/lcm (integer number theory) are not in the dialect"),
    ("test_inplace.py::TestDygraphInplaceLcm", "gcd/lcm (integer number theory) are not in the dialect"),
    ("test_inplace.py::TestDygraphInplaceLdexp", "ldexp is not in the dialect"),
    ("test_inplace.py::TestDygrapInplaceRenorm", "renorm is not in the dialect"),
    ("test_stride.py::TestStride::call_real / call_imag / call_as_real / call_as_complex",
     "complex dtypes are not in the dialect"),
    ("test_stride.py::TestStride::call_view2", "viewing memory as another dtype (`paddle.view(x, 'uint8')`) is not "
                                               "in the engine"),
    ("test_stride.py::TestStrideGPU", "needs a CUDA build; the reference is the CPU wheel"),
    ("test_stride.py::TestToStaticCheck", "static graph (paddle.jit.to_static)"),
    ("test_set_value_op.py (static half)", "paddle.static.setitem, programs and executors: static graph"),
    ("test_set_value_op.py::TestSetValueItemSliceInWhile", "paddle.static.nn.while_loop: static graph"),
    ("test_set_value_op.py::TestSetValueItemBool* / value types / errors",
     "not ported yet: bool items, value types and error messages"),
    ("test_set_value_op.py::TestSetValueBFloat16", "bfloat16 on CUDA"),
    ("test_set_value_op.py::TestSetValueWithScalarInDygraph", "calls the private `_C_ops.set_value` directly"),
    ("test_var_base.py::TestVarBase::test_to_tensor", "mostly places (CUDA pinned, NPU) and complex numbers; "
                                                      "to_tensor itself is covered by the snippets"),
    ("test_var_base.py::TestVarBase::test_deep_copy", "copy.deepcopy of tensors and SELECTED_ROWS is not modelled"),
    ("test_var_base.py::TestVarBase::test_to_variable / test_list_to_variable / test_tuple_to_variable / "
     "test_tensor_to_variable", "fluid.dygraph.to_variable: the fluid API is gone from 3.3.1"),
    ("test_var_base.py::TestVarBase::test_to_static_var / test_block / test_var_base_to_np",
     "static-graph conversions and private framework helpers"),
    ("test_egr_python_api.py::EagerVariablePropertiesAndMethodsTestCase::test_constructor*",
     "the private core.eager.Tensor constructors"),
    ("test_egr_python_api.py::EagerVariablePropertiesAndMethodsTestCase::test_share_buffer_to / "
     "test_share_underline_tensor_to / test_copy_gradient_from / test_clear / test_value / test_use_gpudnn / "
     "test_md5sum / test_sharding_related_api", "private buffer-sharing and framework methods"),
    ("test_egr_python_api.py::EagerParamBaseUsageTestCase::test_copy / func_fp16_initilaizer",
     "deepcopy of a layer; float16 default dtype with TruncatedNormal (its erfinv is not reproduced)"),
    ("test_imperative_auto_prune.py::test_auto_prune3/4/5, test_case2/3/4_prune_no_grad_branch",
     "need paddle.nn.functional.cross_entropy and paddle.nn.Embedding, not in the dialect"),
    ("test_imperative_auto_prune.py::test_auto_prune10", "needs paddle.set_flags (process flags are not modelled)"),
    ("test_imperative_auto_prune.py::test_auto_prune_with_optimizer",
     "needs Embedding and ClipGradByGlobalNorm"),
    ("test_adam_op.py / test_momentum_op.py / test_sgd_op.py (op tests)",
     "OpTest kernels, static programs and NPU/GPU variants; the dygraph tests are ported"),
]


def all_cases() -> list[Case]:
    return [case for module in MODULES for case in module.cases()]


def render() -> str:
    cases = all_cases()
    by_file = Counter(case.upstream.split("::")[0] for case in cases)
    lines = [
        "# Paddle's own tests, ported",
        "",
        "Generated by `python -m tests.paddle.ported.catalog` from tests/paddle/ported/ (do not edit by hand).",
        "",
        "Each upstream dygraph test became a program that runs its steps and prints its assertions' verdicts;",
        "tests/paddle/test_ported.py runs it in real PaddlePaddle 3.3.1 and in the dialect and requires the two",
        "transcripts to be identical (recorded in tests/data/paddle/ported.json for runs without Paddle).",
        f"Random inputs come from a seeded numpy generator. **{len(cases)} cases** from {len(by_file)} files.",
        "",
        "| upstream file | cases ported |",
        "|---|---|",
        *(f"| `test/legacy_test/{file}` | {count} |" for file, count in sorted(by_file.items())),
        "",
        "## Where Paddle 3.3.1 itself fails an upstream assertion",
        "",
        "The upstream files are newer than 3.3.1 in places. These cases are kept: the `FAILED` verdicts are what",
        "3.3.1 does, and the dialect reproduces them.",
        "",
        "| case | what 3.3.1 does |",
        "|---|---|",
        *(f"| `{name}` | {why} |" for name, why in UPSTREAM_DIFFERS.items()),
        "",
        "## Known differences (strict xfail)",
        "",
        "| case | why |",
        "|---|---|",
        *([f"| `{case.name}` | {case.xfail} |" for case in cases if case.xfail] or ["| (none) | |"]),
        "",
        "## Not ported",
        "",
        "| upstream | why |",
        "|---|---|",
        *(f"| `{what}` | {why} |" for what, why in OUT_OF_SCOPE),
        "",
        "## Every ported case",
        "",
        *(f"- `{case.name}`" for case in cases),
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    TABLE.write_text(render(), encoding="utf-8")
    print(f"wrote {TABLE} ({len(all_cases())} cases)")


if __name__ == "__main__":
    main()
