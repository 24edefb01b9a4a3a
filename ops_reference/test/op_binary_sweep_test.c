// SPDX-License-Identifier: Apache-2.0
//
// The binary family's dtype sweep (generated/binary_sweep_cases.h, from
// gen_binary_cases.py): atan2, bitwise_and/or/xor, ge/le/ne, fmod,
// logical_and/or/xor, maximum, minimum, pow.Scalar / pow.Tensor_Tensor,
// div.Scalar_mode and masked_scatter on each of the 15 dtypes PyTorch has,
// then the Tensor overloads on 11 x 11 dtype pairs (rank-1 or zero-dim
// second operand). Where PyTorch computes a result the kernel must produce
// it (dtype, shape, values); where PyTorch refuses, the kernel must fail
// with the code the case names.
// The cases first: the runner works on their binary_case_t.
#include "ops_reference/test/generated/binary_sweep_cases.h"
#include "ops_reference/test/binary_case_runner.h"

TT_TEST(binary_sweep, every_op_every_dtype) {
  size_t count = sizeof(kBinarySweepCases) / sizeof(kBinarySweepCases[0]);
  for (size_t i = 0; i < count; ++i) {
    binary_run_case(&kBinarySweepCases[i], TT_CONTIGUOUS);
  }
}
