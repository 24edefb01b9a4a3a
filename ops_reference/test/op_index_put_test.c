// SPDX-License-Identifier: Apache-2.0
//
// aten::index_put.out against PyTorch-generated cases (one Long index as
// the ring-buffer model uses it, negative and repeated indices with and
// without accumulate, adjacent and non-adjacent advanced indices,
// broadcast index tensors, Bool masks of rank 1 and 2, int32 indices, an
// empty index, int8 accumulation that wraps), in contiguous and
// non-contiguous layouts; plus the exact error codes.
#include "ops_reference/test/generated/index_put_cases.h"
#include "ops_reference/test/test_util.h"

static etr_error_t index_put(etr_tensor_t *self, etr_evalue_t *indices,
                             etr_tensor_t *values, bool accumulate,
                             etr_tensor_t *out) {
  return TT_CALL("aten::index_put.out", tt_ev_tensor(self), indices,
                 tt_ev_tensor(values), tt_ev_bool(accumulate),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(index_put, generated_cases) {
  for (size_t i = 0; i < sizeof(kIndexPutCases) / sizeof(kIndexPutCases[0]);
       ++i) {
    const index_put_case_t *c = &kIndexPutCases[i];
    for (int layout = 0; layout < 2; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *indices[4] = {NULL, NULL, NULL, NULL};
      for (size_t k = 0; k < c->num_indices; ++k) {
        indices[k] = tt_relayout(tt_case_tensor(&c->indices[k]), layout);
      }
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(
          index_put(tt_relayout(tt_case_tensor(&c->self), layout),
                    tt_ev_optional_tensor_list(c->num_indices, indices),
                    tt_relayout(tt_case_tensor(&c->values), layout),
                    c->accumulate, out),
          ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(index_put, rejects) {
  etr_tensor_t *self = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(3, 2), 0);
  etr_tensor_t *values = tt_tensor(ETR_FLOAT, TT_SIZES(2), NULL);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  // Out-of-bounds index (found in the real call, not the dry run).
  etr_tensor_t *far = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(3));
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &far),
                             values, false, out),
                   bad);
  etr_tensor_t *low = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(-4));
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &low),
                             values, false, out),
                   bad);
  // Index dtype, too many indices, mask shape, values shape and dtype.
  etr_tensor_t *float_index = tt_tensor(ETR_FLOAT, TT_SIZES(1), TT_VALUES(0));
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &float_index),
                             values, false, out),
                   bad);
  etr_tensor_t *zero = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(0));
  etr_tensor_t *three[3] = {zero, zero, zero};
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(3, three),
                             values, false, out),
                   bad);
  etr_tensor_t *mask = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &mask),
                             values, false, out),
                   bad);
  etr_tensor_t *wide = tt_tensor(ETR_FLOAT, TT_SIZES(3), NULL);
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &zero), wide,
                             false, out),
                   bad);
  etr_tensor_t *double_values = tt_tensor(ETR_DOUBLE, TT_SIZES(2), NULL);
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &zero),
                             double_values, false, out),
                   bad);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(3, 2), 0);
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &zero),
                             values, false, out_d),
                   bad);
  // Index tensors that do not broadcast together.
  etr_tensor_t *two = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(0, 1));
  etr_tensor_t *pair[2] = {two, tt_tensor(ETR_LONG, TT_SIZES(3), NULL)};
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(2, pair),
                             values, false, out),
                   bad);
  // A 0-dim Bool index is not supported.
  etr_tensor_t *scalar_mask = tt_scalar_tensor(ETR_BOOL, 1);
  tt_expect_status(index_put(self, tt_ev_optional_tensor_list(1, &scalar_mask),
                             values, false, out),
                   ETR_ERR_NOT_SUPPORTED);
}
