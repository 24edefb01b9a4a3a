// SPDX-License-Identifier: Apache-2.0
//
// The binary family's value cases (generated/binary_value_cases.h, from
// gen_binary_cases.py): seeded random values with NaN, infinities, signed
// zeros and integer extremes, broadcasting, zero-dim and empty tensors,
// Scalars of every kind, outs of other dtypes, and the failures PyTorch
// raises. Every case runs three times: contiguous (the out starts 1-D and
// is resized), with every tensor, the out included, a non-contiguous
// strided view, and with rank-4 tensors (inputs and the out)
// channels-last.
// The cases first: the runner works on their binary_case_t.
#include "ops_reference/test/generated/binary_value_cases.h"
#include "ops_reference/test/binary_case_runner.h"

static void run_all(tt_layout_t layout) {
  size_t count = sizeof(kBinaryValueCases) / sizeof(kBinaryValueCases[0]);
  for (size_t i = 0; i < count; ++i) {
    binary_run_case(&kBinaryValueCases[i], layout);
  }
}

TT_TEST(binary_values, contiguous) { run_all(TT_CONTIGUOUS); }

TT_TEST(binary_values, noncontiguous) { run_all(TT_NONCONTIGUOUS); }

TT_TEST(binary_values, channels_last) { run_all(TT_CHANNELS_LAST); }
