// SPDX-License-Identifier: Apache-2.0
//
// aten::bitwise_not.out: out = ~self (logical not for Bool).
//
// Dtypes: Bool, uint8 and int8..int64; the out dtype must equal self's
// (InvalidArgument). Floating, complex and uint16/32/64 are NotSupported
// ("bitwise_not_cpu" not implemented), checked after the out dtype as
// ATen does. Integers are complemented in two's complement at their own
// width (~0 in uint8 is 255, in int8 -1).
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t bitwise_not_int(int64_t value, const void *state) {
  (void)state;
  // The loop wraps the result to the dtype's width; ~ on int64 is defined.
  return ~value;
}

static int64_t logical_not_bool(int64_t value, const void *state) {
  (void)state;
  return value == 0;
}

static const etr_unary_fns_t kBitwiseNotFns = {bitwise_not_int, NULL, NULL};
static const etr_unary_fns_t kBoolNotFns = {logical_not_bool, NULL, NULL};

static const etr_unary_same_dtype_rule_t kBitwiseNotRule = {
    ETR_DTYPES_INTEGRAL | ETR_DTYPES_BOOL, false};

// aten::bitwise_not.out
etr_error_t etr_ref_bitwise_not_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  // Bool values are 0/1 in the int64 callback: ~1 would be -2, which the
  // store to Bool would turn into true, so Bool gets its own callback.
  const etr_unary_fns_t *fns =
      self->dtype == ETR_BOOL ? &kBoolNotFns : &kBitwiseNotFns;
  return etr_unary_same_dtype_kernel(ctx, args, num_args, &kBitwiseNotRule,
                                     fns, NULL);
}
