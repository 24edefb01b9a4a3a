// SPDX-License-Identifier: Apache-2.0
//
// Fuzz target kernel_diff: one kernel call decoded from the input
// (fuzz/kernel/call_decode.h: op name, then arguments in the golden-vector
// value encoding), run as
//   1. a dry run (ctx->dry_run, every tensor's data pointer NULL, as the
//      verifier's shape check may pass them) of the reference kernel;
//   2. the reference kernel on real data, outs poisoned with 0xA5;
//   3. the optimized kernel (etr_registry_select, so the reference again
//      for ops without an optimized twin) on fresh copies of the same
//      arguments, outs poisoned alike, once per ISA this CPU has, every
//      other input with streaming stores from 256 bytes of arrays; where
//      an executor would keep the call's arguments fixed (not in place,
//      not a prim op), with a zeroed kernel memo, and then twice more on
//      the same tensors with their data set back to the decoded values,
//      as the executor runs the instruction: a first call with a zeroed
//      memo on outs already at their shapes, then one vouched for
//      (args_checked, the memo kept) (run_again). (One
//      poison for every run: the fuzzer freely turns an input into an out
//      spec, which a kernel then reads as data, so two poisons would make
//      differences that are no kernel's fault. The scratch arena is not
//      cleared between runs, so a kernel reading scratch it never wrote
//      still shows.)
// An unknown op name picks a registered kernel by the name's hash, so every
// input reaches some kernel; seeds use exact names.
//
// Faults, beyond crashes and sanitizer reports:
//   - reference and optimized disagree: one succeeds and the other fails,
//     or their results differ (every tensor argument is compared after the
//     call, outs and anything a kernel writes in place, and the return
//     slot): bit for bit when both are the same function (the kernel must
//     be deterministic), within a tolerance otherwise (below);
//   - the dry run rejects a call the real kernel accepts, accepts one the
//     kernel refuses for a reason that does not depend on values (any code
//     but InvalidArgument and the memory codes), or accepts it with other
//     output shapes (except ops whose output shape depends on values: the
//     dry run sizes them for the worst case);
//   - a failure without a message in ctx->diag, or a result tensor that
//     reaches past its own capacity;
//   - bytes past a tensor's last element (inside its buffer) that differ
//     between the reference and optimized runs: one of them wrote there.
// aten::max_pool2d_with_indices.out also runs, per ISA, the values-only
// kernel the fuser binds where nothing reads the indices
// (etr_pool_max2d_values_only, ops_optimized/fuse/fuse_fold.c): it must
// fail where the reference fails and write the same values.
// Tolerance between different functions: integers and Bool exactly; NaN
// only NaN; otherwise |a - b| <= rtol * (|b| + max|reference|) with rtol
// 1e-2 for Half and BFloat16, 1e-4 for Float and 1e-9 for Double: loose on
// purpose, looking for gross disagreements (the differential tests in
// ops_optimized/test hold the tight per-op tolerances). One exception, for
// the products-and-sums ops (convolution and its backward, mm, bmm,
// addmm): where the reference, which sums in double, overflows to +-inf,
// the optimized value may be any non-finite one. An fp32 kernel reaches
// such a sum through products and partial sums beyond the float range,
// and which infinity (or NaN) comes out depends on its order: with fused
// multiply-adds an overflowing product keeps its sign, so the first of
// two of opposite signs wins (fault-8e754aeb34: a convolution whose taps
// held products of 1.9e40 and -1.0e42, reference -inf, AVX2 +inf, a
// product rounded to fp32 first NaN). The same holds where the reference
// stays finite through cancellation in double but the inputs could take
// an fp32 product or partial sum past the float range (overflow_capable
// below: fault-12b3776e7a and three more, 3x3 convolutions of 8 channels
// on AVX2 with references of 2e34 to 2e38 and an infinity).
// ETREF_FUZZ_VERBOSE=1 prints each input's op and verdicts (triage).
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/kernel.h"
#include "fuzz/common/fuzz_common.h"
#include "fuzz/kernel/call_decode.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/pool/pool.h"
#include "ops_reference/support/element.h"

#define TARGET "kernel_diff"
#define TEMP_BYTES ((size_t)1 << 20)
#define RNG_SEED 0x5eedull

// Ops whose output values are unspecified (only shapes and dtypes are
// compared).
static bool values_unspecified(const char *op) {
  return strstr(op, "empty") != NULL || strcmp(op, "aten::resize_") == 0;
}

// The op whose values-only kernel is run beside its optimized one, and
// the argument index of the values it writes.
#define VALUES_ONLY_OP "aten::max_pool2d_with_indices.out"
#define VALUES_ONLY_OUT 6

// Ops whose output shape depends on input values.
static bool shape_depends_on_values(const char *op) {
  return strcmp(op, "aten::nonzero.out") == 0 ||
         strcmp(op, "aten::masked_select.out") == 0 ||
         strcmp(op, "executorch_prim::et_copy_index.tensor") == 0;
}

typedef struct {
  etr_error_t status;
  etr_diag_t diag;
  etr_fuzz_pool_t pool;
  etr_fuzz_call_t call;
} run_t;

static uint8_t g_temp_buffer[TEMP_BYTES];
static size_t g_temp_peak;  // scratch bytes the last call took
static _Alignas(64) uint8_t g_memo[ETR_KERNEL_MEMO_BYTES];

// What the executor gives an instruction whose arguments are fixed
// (core/method_fixed_args.c): a memo that stays with it, the arguments
// that are read-only constants, and, once a call passed, args_checked.
typedef struct {
  void *memo;  // NULL: arguments not fixed
  uint64_t constant_args;
  bool args_checked;
} fixed_t;

static const fixed_t kNotFixed = {NULL, 0, false};

// Runs `kernel` on the decoded call in `out`.
static void call_kernel(etr_kernel_fn kernel, const char *op, bool dry_run,
                        const fixed_t *fixed, run_t *out) {
  etr_arena_t temp;
  etr_arena_init(&temp, g_temp_buffer, sizeof(g_temp_buffer));
  uint64_t rng = RNG_SEED;
  etr_diag_reset(&out->diag);
  etr_kernel_context_t ctx = {.diag = &out->diag,
                              .temp = &temp,
                              .op_name = op,
                              .rng_state = &rng,
                              .dry_run = dry_run,
                              .memo = fixed->memo,
                              .constant_args = fixed->constant_args,
                              .args_checked = fixed->args_checked};
  out->status = kernel(&ctx, out->call.args, out->call.num_args);
  g_temp_peak = temp.peak;
  etr_fuzz_check_rejection(TARGET, op, out->status, &out->diag);
}

// Decodes a fresh copy of the call and runs `kernel` on it.
static void run(const uint8_t *data, size_t size, etr_kernel_fn kernel,
                const char *op, uint8_t poison, bool dry_run,
                const fixed_t *fixed, run_t *out) {
  memset(out, 0, sizeof(*out));
  if (!etr_fuzz_decode_call(data, size, poison, dry_run, &out->pool,
                            &out->call)) {
    etr_fuzz_fault(TARGET, "a call that decoded once no longer decodes");
  }
  call_kernel(kernel, op, dry_run, fixed, out);
}

// Whether an executor would call this instruction with fixed arguments
// (core/method_fixed_args.c), given static tensors: not an in-place op
// (name base ending in '_', which returns `self` in its return slot) and
// not a prim op (a scalar in the return slot).
static bool fixed_arguments(const char *op, const etr_fuzz_call_t *call) {
  const char *dot = strchr(op, '.');
  size_t length = dot != NULL ? (size_t)(dot - op) : strlen(op);
  if (length == 0 || op[length - 1] == '_' || call->num_args == 0) {
    return false;
  }
  etr_tag_t slot = call->args[call->num_args - 1]->tag;
  return slot == ETR_TAG_TENSOR || slot == ETR_TAG_LIST_TENSOR;
}

// The bits of the call's top-level input tensors (not outs), which an
// executor would mark read-only constants if the program held them so.
static uint64_t input_tensor_bits(const etr_fuzz_call_t *call) {
  uint64_t bits = 0;
  for (size_t a = 0; a < call->num_args && a < 64; ++a) {
    if (!call->is_out[a] && call->args[a]->tag == ETR_TAG_TENSOR) {
      bits |= (uint64_t)1 << a;
    }
  }
  return bits;
}

// Copies the data of `from`'s tensors (a fresh decode of the same call)
// into `to`'s, leaving `to`'s shapes as the first call left them.
static void restore_data(etr_evalue_t *to, const etr_evalue_t *from) {
  if (to->tag == ETR_TAG_TENSOR && from->tag == ETR_TAG_TENSOR) {
    etr_tensor_t *t = to->u.as_tensor;
    const etr_tensor_t *f = from->u.as_tensor;
    size_t bytes = t->capacity_bytes < f->capacity_bytes ? t->capacity_bytes
                                                         : f->capacity_bytes;
    if (t->data != NULL && f->data != NULL && bytes > 0) {
      memcpy(t->data, f->data, bytes);
    }
  } else if ((to->tag == ETR_TAG_LIST_TENSOR ||
              to->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) &&
             from->tag == to->tag) {
    size_t n = to->u.as_tensor_list.length;
    for (size_t i = 0; i < n && i < from->u.as_tensor_list.length; ++i) {
      etr_evalue_t *a = to->u.as_tensor_list.items[i];
      const etr_evalue_t *b = from->u.as_tensor_list.items[i];
      if (a != NULL && b != NULL) {
        restore_data(a, b);
      }
    }
  }
}

// The executor's calls of an instruction with fixed arguments, on the
// same tensors as `opt`'s first call, which passed and left its outs
// resized: every tensor's data set back to the decoded values (outs to
// the poison) and the scratch the last call took overwritten with 0xFF,
// then, unless `vouched`, a call with a zeroed memo (the executor's first
// call sees its static outs at their shapes, which fast paths ask for),
// else one vouched for (args_checked) with the memo that call left: a
// kernel that trusts what it kept must compute the same results.
static void run_again(const uint8_t *data, size_t size, etr_kernel_fn kernel,
                      const char *op, const fixed_t *fixed, bool vouched,
                      run_t *opt) {
  etr_fuzz_pool_t pool = {0};
  etr_fuzz_call_t fresh;
  if (!etr_fuzz_decode_call(data, size, 0xA5, false, &pool, &fresh)) {
    etr_fuzz_fault(TARGET, "a call that decoded once no longer decodes");
  }
  for (size_t i = 0; i < opt->call.num_args; ++i) {
    restore_data(opt->call.args[i], fresh.args[i]);
  }
  etr_fuzz_pool_free(&pool);
  memset(g_temp_buffer, 0xFF,
         g_temp_peak < TEMP_BYTES ? g_temp_peak : TEMP_BYTES);
  if (!vouched) {
    memset(fixed->memo, 0, ETR_KERNEL_MEMO_BYTES);
  }
  fixed_t again = *fixed;
  again.args_checked = vouched;
  call_kernel(kernel, op, false, &again, opt);
}

// The byte after t's last element (0 when it has none), for strides that
// are not negative (check_extent checks them first).
static size_t tensor_end(const etr_tensor_t *t) {
  if (etr_tensor_numel(t) == 0) {
    return 0;
  }
  uint64_t last = 0;
  for (int32_t d = 0; d < t->dim; ++d) {
    last += (uint64_t)(t->sizes[d] - 1) * (uint64_t)t->strides[d];
  }
  return (size_t)((last + 1) * etr_scalar_type_size(t->dtype));
}

// Fails when a tensor the kernel returned describes bytes past its
// capacity.
static void check_extent(const char *op, const etr_tensor_t *t, size_t arg) {
  int64_t numel = etr_tensor_numel(t);
  if (numel == 0) {
    return;
  }
  for (int32_t d = 0; d < t->dim; ++d) {
    if (t->strides[d] < 0) {
      etr_fuzz_fault(TARGET, "%s: argument %zu has a negative stride", op,
                     arg);
    }
  }
  uint64_t need = tensor_end(t);
  if (t->data == NULL || need > t->capacity_bytes) {
    etr_fuzz_fault(TARGET, "%s: argument %zu (%lld elements) reaches %llu "
                   "bytes past a %zu-byte buffer", op, arg,
                   (long long)numel, (unsigned long long)need,
                   t->capacity_bytes);
  }
}

// The dtype's smallest subnormal: one unit in the last place at zero,
// which a value rounded once from fp32 may differ by where the
// reference rounds through another path (Half gelu of 2^-24: the
// reference's double-then-float rounding lands on the tie 2^-25 and rounds
// to 0, the fp32 value sits just above it and rounds to 2^-24; fault
// 47bc92a002). The unit diff tests allow the same.
static double tiny_of(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
    case ETR_COMPLEX_HALF:
      return 0x1p-24;
    case ETR_BFLOAT16:
      return 0x1p-133;
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT:
      return 0x1p-149;
    default:
      return 0x1p-1074;
  }
}

static double tolerance_of(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
    case ETR_BFLOAT16:
    case ETR_COMPLEX_HALF:
      return 1e-2;
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT:
      return 1e-4;
    default:
      return 1e-9;
  }
}

// The ops whose values are sums of products (the tolerance exception
// above).
static bool sums_products(const char *op) {
  static const char *const kOps[] = {"aten::convolution.",
                                     "aten::convolution_backward.",
                                     "aten::mm.", "aten::bmm.",
                                     "aten::addmm."};
  for (size_t i = 0; i < sizeof(kOps) / sizeof(kOps[0]); ++i) {
    if (strncmp(op, kOps[i], strlen(kOps[i])) == 0) {
      return true;
    }
  }
  return false;
}

// Whether the call of a sums_products op can take an fp32 sum past the
// float range in some order of its terms, while the reference, which sums
// in double, stays finite: set per input from the reference call. Its
// inputs bound every term and partial sum: the two largest magnitudes of
// its floating tensors (m1 >= m2) multiplied, times the longest tensor's
// length (at least each sum's term count), plus m1 (a bias or addmm's
// self), times addmm's larger scalar (alpha, beta; at least 1), times 36
// (how much Winograd's transforms may grow values before the products).
// Below FLT_MAX no fp32 order overflows.
static bool g_overflow_capable;

static bool overflow_capable(const char *op, const etr_fuzz_call_t *call) {
  const bool scaled = strncmp(op, "aten::addmm.", 12) == 0;
  double m1 = 0.0;
  double m2 = 0.0;
  double length = 0.0;
  double scalar = 1.0;
  for (size_t i = 0; i < call->num_args; ++i) {
    const etr_evalue_t *v = call->args[i];
    if (call->is_out[i] || v == NULL) {
      continue;
    }
    if (scaled && (v->tag == ETR_TAG_DOUBLE || v->tag == ETR_TAG_INT)) {
      double x = v->tag == ETR_TAG_DOUBLE ? fabs(v->u.as_double)
                                          : fabs((double)v->u.as_int);
      scalar = x > scalar ? x : scalar;
      continue;
    }
    if (v->tag != ETR_TAG_TENSOR ||
        !etr_scalar_type_is_floating(v->u.as_tensor->dtype)) {
      continue;
    }
    const etr_tensor_t *t = v->u.as_tensor;
    const int64_t numel = etr_tensor_numel(t);
    const size_t element_size = etr_scalar_type_size(t->dtype);
    double largest = 0.0;
    int64_t index[ETR_MAX_DIMS] = {0};
    for (int64_t k = 0; k < numel && t->data != NULL; ++k) {
      const uint8_t *x = (const uint8_t *)t->data +
                         (size_t)etr_tensor_offset(t, index) * element_size;
      etr_index_next(index, t->sizes, t->dim);
      const double a = fabs(etr_load_double(t->dtype, x));
      largest = a > largest ? a : largest;  // NaN counts as nothing
    }
    if (largest > m1) {
      m2 = m1;
      m1 = largest;
    } else if (largest > m2) {
      m2 = largest;
    }
    length = (double)numel > length ? (double)numel : length;
  }
  return (m1 * m2 * length + m1) * scalar * 36.0 > (double)FLT_MAX;
}

static bool close_enough(double a, double b, double rtol, double scale,
                         double tiny) {
  if (isnan(a) || isnan(b)) {
    return isnan(a) && isnan(b);
  }
  if (a == b) {
    return true;
  }
  if (isinf(a) || isinf(b)) {
    return false;
  }
  return fabs(a - b) <= rtol * (fabs(b) + scale) + tiny;
}

// Compares one tensor of the reference run (ref) with the same tensor of an
// optimized run (got).
static void compare_tensor(const char *op, const char *isa, size_t arg,
                           const etr_tensor_t *ref, const etr_tensor_t *got,
                           bool exact) {
  if (ref->dtype != got->dtype || !etr_tensor_same_shape(ref, got)) {
    char a[256];
    char b[256];
    etr_tensor_describe(ref, a, sizeof(a));
    etr_tensor_describe(got, b, sizeof(b));
    etr_fuzz_fault(TARGET, "%s (%s): argument %zu is %s in the reference "
                   "run and %s in the optimized run", op, isa, arg, a, b);
  }
  // The bytes past the last element, which both runs started with the
  // same (decoded or poisoned), must still agree: a kernel writing past
  // its tensor inside the buffer's capacity shows here, where ASan does
  // not look.
  size_t end = tensor_end(ref);
  size_t capacity = ref->capacity_bytes < got->capacity_bytes
                        ? ref->capacity_bytes
                        : got->capacity_bytes;
  if (ref->data != NULL && got->data != NULL && end < capacity &&
      memcmp((const uint8_t *)ref->data + end,
             (const uint8_t *)got->data + end, capacity - end) != 0) {
    etr_fuzz_fault(TARGET, "%s (%s): argument %zu: bytes past its last "
                   "element (%zu) differ between the runs", op, isa, arg,
                   end);
  }
  if (values_unspecified(op)) {
    return;
  }
  etr_scalar_type_t dtype = ref->dtype;
  size_t element_size = etr_scalar_type_size(dtype);
  bool floating = etr_scalar_type_is_floating(dtype);
  bool complex = etr_scalar_type_is_complex(dtype);
  int64_t numel = etr_tensor_numel(ref);
  double scale = 0.0;
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int pass = 0; pass < 2; ++pass) {
    memset(index, 0, sizeof(index));
    for (int64_t k = 0; k < numel; ++k) {
      const uint8_t *x = (const uint8_t *)ref->data +
                         (size_t)etr_tensor_offset(ref, index) * element_size;
      const uint8_t *y = (const uint8_t *)got->data +
                         (size_t)etr_tensor_offset(got, index) * element_size;
      etr_index_next(index, ref->sizes, ref->dim);
      if (pass == 0) {  // the reference's largest finite magnitude
        double parts[2] = {0.0, 0.0};  // a complex value's two, each
        if (complex) {
          etr_complex_t c = etr_load_complex(dtype, x);
          parts[0] = fabs(c.real);
          parts[1] = fabs(c.imag);
        } else if (floating) {
          parts[0] = fabs(etr_load_double(dtype, x));
        }
        for (int q = 0; q < 2; ++q) {
          scale = isfinite(parts[q]) && parts[q] > scale ? parts[q] : scale;
        }
        continue;
      }
      bool same = memcmp(x, y, element_size) == 0;
      if (same) {
        continue;
      }
      if (!exact && floating) {
        const double want = etr_load_double(dtype, x);
        const double have = etr_load_double(dtype, y);
        same = close_enough(have, want, tolerance_of(dtype), scale,
                            tiny_of(dtype)) ||
               (!isfinite(have) && sums_products(op) &&
                (isinf(want) || g_overflow_capable));
      } else if (!exact && complex) {
        etr_complex_t cx = etr_load_complex(dtype, x);
        etr_complex_t cy = etr_load_complex(dtype, y);
        same = close_enough(cy.real, cx.real, tolerance_of(dtype), scale,
                            tiny_of(dtype)) &&
               close_enough(cy.imag, cx.imag, tolerance_of(dtype), scale,
                            tiny_of(dtype));
      }
      if (!same && complex) {
        etr_complex_t cx = etr_load_complex(dtype, x);
        etr_complex_t cy = etr_load_complex(dtype, y);
        etr_fuzz_fault(TARGET, "%s (%s): argument %zu element %lld differs: "
                       "reference %.17g%+.17gi, optimized %.17g%+.17gi (%s)",
                       op, isa, arg, (long long)k, cx.real, cx.imag, cy.real,
                       cy.imag,
                       exact ? "same kernel: bit for bit" : "tolerance");
      } else if (!same) {
        etr_fuzz_fault(TARGET, "%s (%s): argument %zu element %lld differs: "
                       "reference %.17g, optimized %.17g (%s)", op, isa, arg,
                       (long long)k,
                       floating ? etr_load_double(dtype, x)
                                : (double)etr_load_int64(dtype, x),
                       floating ? etr_load_double(dtype, y)
                                : (double)etr_load_int64(dtype, y),
                       exact ? "same kernel: bit for bit" : "tolerance");
      }
    }
  }
}

static void compare_value(const char *op, const char *isa, size_t arg,
                          const etr_evalue_t *ref, const etr_evalue_t *got,
                          bool exact) {
  if (ref->tag != got->tag) {
    etr_fuzz_fault(TARGET, "%s (%s): argument %zu became %s vs %s", op, isa,
                   arg, etr_tag_name(ref->tag), etr_tag_name(got->tag));
  }
  switch (ref->tag) {
    case ETR_TAG_TENSOR:
      check_extent(op, ref->u.as_tensor, arg);
      check_extent(op, got->u.as_tensor, arg);
      compare_tensor(op, isa, arg, ref->u.as_tensor, got->u.as_tensor, exact);
      return;
    case ETR_TAG_LIST_TENSOR:
    case ETR_TAG_LIST_OPTIONAL_TENSOR:
      for (size_t i = 0; i < ref->u.as_tensor_list.length; ++i) {
        const etr_evalue_t *a = ref->u.as_tensor_list.items[i];
        const etr_evalue_t *b = got->u.as_tensor_list.items[i];
        if (a != NULL && b != NULL) {
          compare_value(op, isa, arg, a, b, exact);
        }
      }
      return;
    case ETR_TAG_INT:
      if (ref->u.as_int != got->u.as_int) {
        etr_fuzz_fault(TARGET, "%s (%s): argument %zu is %lld vs %lld", op,
                       isa, arg, (long long)ref->u.as_int,
                       (long long)got->u.as_int);
      }
      return;
    case ETR_TAG_DOUBLE:
      if (!close_enough(got->u.as_double, ref->u.as_double,
                        exact ? 0.0 : 1e-9, 0.0, 0.0)) {
        etr_fuzz_fault(TARGET, "%s (%s): argument %zu is %.17g vs %.17g", op,
                       isa, arg, ref->u.as_double, got->u.as_double);
      }
      return;
    case ETR_TAG_BOOL:
      if (ref->u.as_bool != got->u.as_bool) {
        etr_fuzz_fault(TARGET, "%s (%s): argument %zu differs (Bool)", op,
                       isa, arg);
      }
      return;
    default:
      return;
  }
}

// The dry run must agree with the real call: same verdict, same out
// shapes (values aside).
static void check_dry_run(const char *op, const run_t *dry, const run_t *real) {
  if (dry->status != ETR_OK && real->status == ETR_OK) {
    etr_fuzz_fault(TARGET, "%s: the dry run rejects a call the kernel "
                   "accepts: %s", op, dry->diag.message);
  }
  // Value checks (an index out of range, an integer division by zero) and
  // scratch memory are InvalidArgument and MemoryAllocationFailed; a
  // refusal for a wrong type, argument list or unsupported dtype never
  // depends on values, so the dry run (what the verifier relies on) must
  // have refused it too.
  if (dry->status == ETR_OK && real->status != ETR_OK &&
      real->status != ETR_ERR_INVALID_ARGUMENT &&
      real->status != ETR_ERR_MEMORY_ALLOCATION_FAILED &&
      real->status != ETR_ERR_OUT_OF_RESOURCES) {
    etr_fuzz_fault(TARGET, "%s: the dry run accepts a call the kernel "
                   "refuses with %s: %s", op, etr_error_name(real->status),
                   real->diag.message);
  }
  if (dry->status != ETR_OK || real->status != ETR_OK ||
      shape_depends_on_values(op)) {
    return;
  }
  for (size_t i = 0; i < real->call.num_args; ++i) {
    const etr_evalue_t *a = dry->call.args[i];
    const etr_evalue_t *b = real->call.args[i];
    if (a->tag == ETR_TAG_TENSOR && b->tag == ETR_TAG_TENSOR &&
        !etr_tensor_same_shape(a->u.as_tensor, b->u.as_tensor)) {
      char x[256];
      char y[256];
      etr_tensor_describe(a->u.as_tensor, x, sizeof(x));
      etr_tensor_describe(b->u.as_tensor, y, sizeof(y));
      etr_fuzz_fault(TARGET, "%s: argument %zu is %s after the dry run, %s "
                     "after the real call", op, i, x, y);
    }
  }
}

// Runs VALUES_ONLY_OP's values-only kernel into `opt` and compares its
// status and values with the reference run `ref`.
static void check_values_only(const uint8_t *data, size_t size,
                              const char *op, const char *isa_name,
                              const run_t *ref, run_t *opt) {
  char name[64];
  snprintf(name, sizeof(name), "%s, values only", isa_name);
  run(data, size, etr_pool_max2d_values_only, op, 0xA5, false, &kNotFixed,
      opt);
  if ((ref->status == ETR_OK) != (opt->status == ETR_OK)) {
    etr_fuzz_fault(TARGET, "%s (%s): reference %s, values only %s: %s", op,
                   name, etr_error_name(ref->status),
                   etr_error_name(opt->status),
                   ref->status != ETR_OK ? ref->diag.message
                                         : opt->diag.message);
  }
  if (ref->status == ETR_OK && ref->call.num_args > VALUES_ONLY_OUT) {
    compare_value(op, name, VALUES_ONLY_OUT,
                  ref->call.args[VALUES_ONLY_OUT],
                  opt->call.args[VALUES_ONLY_OUT], false);
  }
  etr_fuzz_pool_free(&opt->pool);
}

// The registry entry for `name`, or one chosen by the name's hash.
static const etr_kernel_entry_t *find_entry(const char *name) {
  const etr_kernel_registry_t *kernels = etr_fuzz_kernels();
  const etr_kernel_entry_t *entry = etr_registry_find(kernels, name);
  if (entry == NULL && kernels->count > 0) {
    uint64_t hash = etr_fuzz_hash((const uint8_t *)name, strlen(name));
    entry = &kernels->entries[hash % kernels->count];
  }
  return entry;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  etr_fuzz_pool_t probe_pool = {0};
  etr_fuzz_call_t probe;
  bool decoded =
      etr_fuzz_decode_call(data, size, 0, true, &probe_pool, &probe);
  etr_fuzz_pool_free(&probe_pool);
  if (!decoded) {
    return 0;
  }
  const etr_kernel_entry_t *entry = find_entry(probe.op);
  if (entry == NULL) {
    return 0;
  }
  const char *op = entry->name;
  etr_kernel_fn reference = etr_registry_select(entry, ETR_KERNELS_REFERENCE);
  etr_kernel_fn optimized = etr_registry_select(entry, ETR_KERNELS_OPTIMIZED);
  static run_t dry;
  static run_t ref;
  static run_t opt;
  run(data, size, reference, op, 0xA5, true, &kNotFixed, &dry);
  run(data, size, reference, op, 0xA5, false, &kNotFixed, &ref);
  static int verbose = -1;  // ETREF_FUZZ_VERBOSE=1: one line per input
  if (verbose < 0) {
    verbose = getenv("ETREF_FUZZ_VERBOSE") != NULL;
  }
  if (verbose) {
    fprintf(stderr, "kernel_diff: %s dry run %s, reference %s%s%s\n", op,
            etr_error_name(dry.status), etr_error_name(ref.status),
            ref.status != ETR_OK ? ": " : "",
            ref.status != ETR_OK ? ref.diag.message : "");
  }
  check_dry_run(op, &dry, &ref);
  g_overflow_capable = sums_products(op) && ref.status == ETR_OK &&
                       overflow_capable(op, &ref.call);
  etr_fuzz_pool_free(&dry.pool);
  // Every other input (by its hash) streams from 256 bytes of arrays, so
  // the streaming-store loops (ops_optimized/common/stream.h), which the
  // detected threshold keeps for arrays of megabytes, run on the small
  // tensors the fuzzer makes.
  etr_isa_force_stream_bytes(etr_fuzz_hash(data, size) % 2 == 0 ? 256 : 0);
  bool same = optimized == reference;
  // An optimized kernel runs as an executor runs an instruction whose
  // arguments are fixed: with a zeroed memo (and, on half the inputs,
  // its input tensors marked read-only constants), then, after a call
  // that passed, twice more (run_again), the last vouched for; every
  // call must match the reference.
  fixed_t fixed = kNotFixed;
  if (!same && fixed_arguments(op, &ref.call)) {
    fixed.memo = g_memo;
    fixed.constant_args = etr_fuzz_hash(data, size) % 4 < 2
                              ? input_tensor_bits(&ref.call)
                              : 0;
  }
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa) || (same && isa > 0)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    const char *isa_name = same ? "same kernel" : etr_isa_name((etr_isa_t)isa);
    memset(g_memo, 0, sizeof(g_memo));
    static const char *const kCalls[3] = {
        "", ", second call (outs at their shapes)",
        ", vouched third call (args_checked, the memo kept)"};
    for (int call = 0; call < 3; ++call) {
      char name[96];
      snprintf(name, sizeof(name), "%s%s", isa_name, kCalls[call]);
      if (call == 0) {
        run(data, size, optimized, op, 0xA5, false, &fixed, &opt);
      } else if (fixed.memo != NULL && opt.status == ETR_OK) {
        run_again(data, size, optimized, op, &fixed, call == 2, &opt);
      } else {
        break;
      }
      if ((ref.status == ETR_OK) != (opt.status == ETR_OK)) {
        etr_fuzz_fault(TARGET, "%s (%s): reference %s, optimized %s: %s", op,
                       name, etr_error_name(ref.status),
                       etr_error_name(opt.status),
                       ref.status != ETR_OK ? ref.diag.message
                                            : opt.diag.message);
      }
      if (ref.status == ETR_OK) {
        for (size_t i = 0; i < ref.call.num_args; ++i) {
          compare_value(op, name, i, ref.call.args[i], opt.call.args[i],
                        same);
        }
      }
    }
    etr_fuzz_pool_free(&opt.pool);
    if (strcmp(op, VALUES_ONLY_OP) == 0) {
      check_values_only(data, size, op, isa_name, &ref, &opt);
    }
  }
  etr_isa_reset();
  etr_isa_force_stream_bytes(0);
  etr_fuzz_pool_free(&ref.pool);
  return 0;
}
