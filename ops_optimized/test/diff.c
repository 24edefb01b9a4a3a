// SPDX-License-Identifier: Apache-2.0
//
// Differential testing harness (see diff.h).
#include "ops_optimized/test/diff.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/element.h"

static etr_diff_stats_t g_stats;

const etr_diff_stats_t *etr_diff_stats(void) { return &g_stats; }

uint64_t etr_diff_next(etr_diff_case_t *c) {
  uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

int64_t etr_diff_range(etr_diff_case_t *c, int64_t low, int64_t high) {
  uint64_t span = (uint64_t)(high - low) + 1;
  return low + (int64_t)(etr_diff_next(c) % span);
}

static double uniform(etr_diff_case_t *c, double low, double high) {
  return low + (high - low) * ((double)(etr_diff_next(c) >> 11) /
                               9007199254740992.0);
}

void etr_diff_begin(etr_diff_case_t *c, const char *op, uint64_t seed,
                    const char *label_format, ...) {
  memset(c, 0, sizeof(*c));
  c->op = op;
  c->seed = seed;
  c->rng = seed;
  c->tolerance.kind = ETR_DIFF_EXACT;
  c->dtype = ETR_FLOAT;
  for (size_t i = 0; i < ETR_DIFF_MAX_ARGS; ++i) {
    c->aliases[i] = -1;
  }
  va_list args;
  va_start(args, label_format);
  vsnprintf(c->label, sizeof(c->label), label_format, args);
  va_end(args);
}

static void append(etr_diff_case_t *c, etr_evalue_t *value) {
  cr_assert_lt(c->num_args, ETR_DIFF_MAX_ARGS, "too many arguments");
  c->args[c->num_args++] = value;
}

void etr_diff_arg(etr_diff_case_t *c, etr_evalue_t *value) {
  append(c, value);
}

// One value for `fill` in a dtype's terms.
static double fill_value(etr_diff_case_t *c, etr_scalar_type_t dtype,
                         etr_diff_fill_t fill) {
  bool floating = etr_scalar_type_is_floating(dtype) ||
                  etr_scalar_type_is_complex(dtype);
  bool is_unsigned = etr_scalar_type_is_unsigned(dtype);
  if (dtype == ETR_BOOL) {
    return fill == ETR_FILL_ZERO ? 0 : (double)(etr_diff_next(c) & 1);
  }
  switch (fill) {
    case ETR_FILL_ZERO:
      return 0.0;
    case ETR_FILL_POSITIVE:
      return floating ? uniform(c, 0.1, 2.0)
                      : (double)etr_diff_range(c, 1, 10);
    case ETR_FILL_EXACT_INT:
      return (double)etr_diff_range(c, is_unsigned ? 0 : -4, 4);
    case ETR_FILL_SPECIAL: {
      static const double kFloatSpecials[] = {
          NAN,  INFINITY, -INFINITY, -0.0, 0.0, 1e-40, -1e-40,
          3.0e38, -3.0e38, 1e-7, 65504.0, 1.0, -1.0};
      static const double kIntSpecials[] = {0, 1, -1, 127, -128, 255,
                                            32767, -32768, 2147483647.0,
                                            -2147483648.0};
      if ((etr_diff_next(c) & 3) != 0) {  // 3 in 4 ordinary values
        return floating ? uniform(c, -1, 1)
                        : (double)etr_diff_range(c, is_unsigned ? 0 : -10,
                                                 10);
      }
      if (floating) {
        return kFloatSpecials[etr_diff_next(c) %
                              (sizeof(kFloatSpecials) / sizeof(double))];
      }
      return kIntSpecials[etr_diff_next(c) %
                          (sizeof(kIntSpecials) / sizeof(double))];
    }
    case ETR_FILL_RANDOM:
    default:
      return floating ? uniform(c, -1, 1)
                      : (double)etr_diff_range(c, is_unsigned ? 0 : -10, 10);
  }
}

static etr_tensor_t *relayout(const etr_tensor_t *tensor,
                              etr_diff_layout_t layout) {
  switch (layout) {
    case ETR_DIFF_NONCONTIGUOUS:
      return tt_relayout(tensor, TT_NONCONTIGUOUS);
    case ETR_DIFF_CHANNELS_LAST:
      return tt_relayout(tensor, TT_CHANNELS_LAST);
    default:
      return (etr_tensor_t *)tensor;
  }
}

etr_tensor_t *etr_diff_input(etr_diff_case_t *c, etr_scalar_type_t dtype,
                             int32_t dim, const int64_t *sizes,
                             etr_diff_layout_t layout, etr_diff_fill_t fill) {
  etr_tensor_t *tensor = tt_tensor(dtype, dim, sizes, NULL);
  int64_t numel = etr_tensor_numel(tensor);
  size_t element_size = etr_scalar_type_size(dtype);
  bool complex = etr_scalar_type_is_complex(dtype);
  for (int64_t i = 0; i < numel; ++i) {
    void *element = (uint8_t *)tensor->data + (size_t)i * element_size;
    if (complex) {
      etr_complex_t value = {fill_value(c, dtype, fill),
                             fill_value(c, dtype, fill)};
      etr_store_complex(dtype, element, value);
    } else if (etr_scalar_type_is_floating(dtype)) {
      etr_store_double(dtype, element, fill_value(c, dtype, fill));
    } else {
      etr_store_int64(dtype, element,
                      (int64_t)fill_value(c, dtype, fill));
    }
  }
  etr_tensor_t *laid_out = relayout(tensor, layout);
  c->layout = layout;
  c->dtype = dtype;
  append(c, tt_ev_tensor(laid_out));
  return laid_out;
}

etr_tensor_t *etr_diff_seams_input(etr_diff_case_t *c, const float *seams,
                                   int count) {
  int64_t n = (int64_t)count * 8 * 2;
  etr_tensor_t *t = etr_diff_input(c, ETR_FLOAT, 1, &n, ETR_DIFF_CONTIGUOUS,
                                   ETR_FILL_ZERO);
  float *data = (float *)t->data;
  int64_t i = 0;
  for (int k = 0; k < count; ++k) {
    float value = seams[k];
    for (int step = 0; step < 4; ++step) {
      value = nextafterf(value, 0.0f);
    }
    for (int step = 0; step < 8; ++step) {
      data[i++] = value;
      data[i++] = -value;
      value = nextafterf(value, INFINITY);
    }
  }
  return t;
}

void etr_diff_binade_table_seams(float *seams) {
  int count = 0;
  for (int binade = 0; binade < 4; ++binade) {
    const float width = ldexpf(0.5f, binade) / 8.0f;
    for (int k = binade == 0 ? 1 : 0; k < 8; ++k) {
      seams[count++] = ldexpf(0.5f, binade) - 0.5f + (float)k * width;
    }
  }
  seams[count++] = 7.5f;
  seams[count++] = 9.125f;
}

void etr_diff_out(etr_diff_case_t *c, etr_scalar_type_t dtype, int32_t dim,
                  const int64_t *sizes, etr_diff_layout_t layout,
                  int64_t spare) {
  int64_t numel = 1;
  for (int32_t i = 0; i < dim; ++i) {
    numel *= sizes[i];
  }
  etr_tensor_t *spec = tt_out(dtype, dim, sizes, numel + spare);
  if (layout == ETR_DIFF_CHANNELS_LAST && dim == 4) {
    static const uint8_t kOrder[4] = {0, 2, 3, 1};
    spec = tt_out_dim_order(dtype, dim, sizes, kOrder);
  }
  c->out_spec[c->num_args] = spec;
  append(c, tt_ev_tensor(spec));
}

void etr_diff_out_aliasing(etr_diff_case_t *c, size_t input_index) {
  cr_assert_lt(input_index, c->num_args);
  c->aliases[c->num_args] = (int32_t)input_index;
  append(c, c->args[input_index]);
}

void etr_diff_out_list(etr_diff_case_t *c, size_t count,
                       const size_t *indices) {
  etr_tensor_t *tensors[ETR_DIFF_MAX_ARGS];
  cr_assert_leq(count, ETR_DIFF_MAX_ARGS);
  size_t *saved = (size_t *)tt_alloc(sizeof(size_t) * (count + 1));
  for (size_t i = 0; i < count; ++i) {
    cr_assert_lt(indices[i], c->num_args);
    tensors[i] = c->args[indices[i]]->u.as_tensor;
    saved[i] = indices[i];
  }
  // The list is rebuilt for every run from that run's outs.
  c->out_list_length[c->num_args] = count;
  c->out_list_indices[c->num_args] = saved;
  append(c, tt_ev_tensor_list(count, tensors));
}

void etr_diff_return(etr_diff_case_t *c, size_t index) {
  cr_assert_lt(index, c->num_args);
  c->aliases[c->num_args] = -2 - (int32_t)index;  // "same EValue as index"
  append(c, c->args[index]);
}

void etr_diff_tolerance_exact(etr_diff_case_t *c) {
  c->tolerance = (etr_diff_tolerance_t){ETR_DIFF_EXACT, 0, 0, 0};
}

void etr_diff_tolerance_ulp(etr_diff_case_t *c, double ulp) {
  c->tolerance = (etr_diff_tolerance_t){ETR_DIFF_ULP, ulp, 0, 0};
}

void etr_diff_tolerance_bound(etr_diff_case_t *c, double atol, double rtol) {
  c->tolerance = (etr_diff_tolerance_t){ETR_DIFF_BOUND, 0, atol, rtol};
}

void etr_diff_tolerance_add_rounding(etr_diff_case_t *c,
                                     etr_scalar_type_t dtype) {
  if (dtype == ETR_HALF) {
    c->tolerance.rtol += 0x1p-10;
    c->tolerance.atol += 0x1p-24;
  } else if (dtype == ETR_BFLOAT16) {
    c->tolerance.rtol += 0x1p-7;
    c->tolerance.atol += 0x1p-133;
  }
}

// Unit roundoff of a floating dtype.
static double unit_roundoff(etr_scalar_type_t dtype) {
  switch (dtype) {
    case ETR_HALF:
      return 0x1p-11;
    case ETR_BFLOAT16:
      return 0x1p-8;
    case ETR_DOUBLE:
    case ETR_COMPLEX_DOUBLE:
      return 0x1p-53;
    default:
      return 0x1p-24;
  }
}

double etr_diff_accumulation_bound(etr_scalar_type_t dtype, int64_t k,
                                   double max_a, double max_b) {
  double u = unit_roundoff(dtype);
  double ku = (double)k * u;
  double gamma = ku < 0.5 ? ku / (1 - ku) : 1.0;
  return 2.0 * gamma * (double)k * max_a * max_b + u;
}

size_t etr_diff_edge_sizes(int64_t width, int64_t *sizes) {
  int64_t candidates[10] = {0,         1,         width - 1, width,
                            width + 1, 2 * width - 1, 2 * width,
                            3 * width + 1, 4 * width + 3,
                            1000 + width / 2};
  size_t count = 0;
  for (size_t i = 0; i < 10; ++i) {
    bool seen = candidates[i] < 0;
    for (size_t j = 0; j < count && !seen; ++j) {
      seen = sizes[j] == candidates[i];
    }
    if (!seen) {
      sizes[count++] = candidates[i];
    }
  }
  return count;
}

// ---------------------------------------------------------------------------
// Running.

static etr_kernel_fn find_in(const etr_kernel_registration_t *table,
                             size_t count, const char *name) {
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(table[i].name, name) == 0) {
      return table[i].fn;
    }
  }
  return NULL;
}

// A fresh out like `spec`: same dtype, sizes, dim order and capacity, filled
// with a poison pattern so an element the kernel never writes shows up.
static etr_tensor_t *fresh_out(const etr_tensor_t *spec) {
  etr_tensor_t *out = (etr_tensor_t *)tt_alloc(sizeof(etr_tensor_t));
  *out = *spec;
  out->data = tt_alloc(spec->capacity_bytes + 1);
  memset(out->data, 0x5a, spec->capacity_bytes);
  return out;
}

static etr_tensor_t *copy_tensor(const etr_tensor_t *tensor) {
  etr_tensor_t *copy = (etr_tensor_t *)tt_alloc(sizeof(etr_tensor_t));
  *copy = *tensor;
  copy->data = tt_alloc(tensor->capacity_bytes + 1);
  memcpy(copy->data, tensor->data, tensor->capacity_bytes);
  return copy;
}

// The argument list of one run: inputs shared, outs fresh.
static void build_run(const etr_diff_case_t *c, etr_evalue_t **run) {
  for (size_t i = 0; i < c->num_args; ++i) {
    run[i] = c->args[i];
  }
  for (size_t i = 0; i < c->num_args; ++i) {
    if (c->aliases[i] >= 0) {  // in-place: a private copy for both slots
      size_t input = (size_t)c->aliases[i];
      etr_tensor_t *copy = copy_tensor(c->args[input]->u.as_tensor);
      run[input] = tt_ev_tensor(copy);
      run[i] = run[input];
    } else if (c->out_spec[i] != NULL) {
      run[i] = tt_ev_tensor(fresh_out(c->out_spec[i]));
    }
  }
  for (size_t i = 0; i < c->num_args; ++i) {
    if (c->out_list_length[i] > 0) {
      const size_t *indices = c->out_list_indices[i];
      etr_tensor_t *tensors[ETR_DIFF_MAX_ARGS];
      for (size_t k = 0; k < c->out_list_length[i]; ++k) {
        tensors[k] = run[indices[k]]->u.as_tensor;
      }
      run[i] = tt_ev_tensor_list(c->out_list_length[i], tensors);
    } else if (c->aliases[i] <= -2) {
      run[i] = run[(size_t)(-2 - c->aliases[i])];
    }
  }
}

static bool is_output(const etr_diff_case_t *c, size_t i) {
  return c->out_spec[i] != NULL || c->aliases[i] >= 0;
}

// Units in the last place of `dtype` at magnitude |x|.
static double ulp_of(etr_scalar_type_t dtype, double x) {
  x = fabs(x);
  int mantissa = 23;
  int min_exponent = -126;
  switch (dtype) {
    case ETR_HALF:
      mantissa = 10;
      min_exponent = -14;
      break;
    case ETR_BFLOAT16:
      mantissa = 7;
      break;
    case ETR_DOUBLE:
    case ETR_COMPLEX_DOUBLE:
      mantissa = 52;
      min_exponent = -1022;
      break;
    default:
      break;
  }
  int exponent = x > 0 && isfinite(x) ? ilogb(x) : min_exponent;
  if (exponent < min_exponent) {
    exponent = min_exponent;
  }
  return ldexp(1.0, exponent - mantissa);
}

static bool close_values(const etr_diff_tolerance_t *t,
                         etr_scalar_type_t dtype, double actual,
                         double expected) {
  if (isnan(actual) || isnan(expected)) {
    return isnan(actual) && isnan(expected);
  }
  if (isinf(actual) || isinf(expected)) {
    return actual == expected;
  }
  switch (t->kind) {
    case ETR_DIFF_EXACT:
      return actual == expected && signbit(actual) == signbit(expected);
    case ETR_DIFF_ULP: {
      double unit = ulp_of(dtype, fmax(fabs(actual), fabs(expected)));
      return fabs(actual - expected) <= t->ulp * unit;
    }
    default:
      return fabs(actual - expected) <= t->atol + t->rtol * fabs(expected);
  }
}

static void describe_shapes(const etr_diff_case_t *c, char *buffer,
                            size_t capacity) {
  size_t used = 0;
  buffer[0] = '\0';
  for (size_t i = 0; i < c->num_args && used < capacity; ++i) {
    if (c->args[i]->tag != ETR_TAG_TENSOR || is_output(c, i)) {
      continue;
    }
    char text[160];
    etr_tensor_describe(c->args[i]->u.as_tensor, text, sizeof(text));
    int written = snprintf(buffer + used, capacity - used, "%s%s",
                           used ? ", " : "", text);
    used += written > 0 ? (size_t)written : 0;
  }
}

// Which optimized call of the current ISA is being checked: 0 the first,
// 1 the vouched second (named in failures).
static int g_call;

static void report_failure(const etr_diff_case_t *c, int case_number,
                           etr_isa_t isa, const char *what) {
  char shapes[512];
  describe_shapes(c, shapes, sizeof(shapes));
  // Bazel names the test target in TEST_TARGET.
  const char *target = getenv("TEST_TARGET");
  fprintf(stderr,
          "DIFF FAIL %s [%s] dtype %s, ISA %s%s, inputs %s, seed %llu: "
          "%s\n"
          "  repro: bazel test %s --test_env=ETREF_DIFF_ONLY='%s#%d' "
          "--test_env=ETREF_ISA=%s --test_output=all\n",
          c->op, c->label, etr_scalar_type_name(c->dtype), etr_isa_name(isa),
          g_call == 1 ? " (vouched second call, ctx->args_checked)" : "",
          shapes, (unsigned long long)c->seed, what,
          target != NULL ? target : "<this test>", c->op, case_number,
          etr_isa_name(isa));
}

// Compares one output tensor of the reference and optimized runs.
static bool compare_outputs(const etr_diff_case_t *c, int case_number,
                            etr_isa_t isa, size_t arg,
                            const etr_tensor_t *expected,
                            const etr_tensor_t *actual) {
  char what[512];
  if (expected->dtype != actual->dtype ||
      !etr_tensor_same_shape(expected, actual)) {
    char e[160];
    char a[160];
    etr_tensor_describe(expected, e, sizeof(e));
    etr_tensor_describe(actual, a, sizeof(a));
    snprintf(what, sizeof(what), "argument %zu: reference gives %s, "
             "optimized %s", arg, e, a);
    report_failure(c, case_number, isa, what);
    return false;
  }
  int64_t numel = etr_tensor_numel(expected);
  if (numel == 0) {
    return true;
  }
  bool integral = !etr_scalar_type_is_floating(expected->dtype) &&
                  !etr_scalar_type_is_complex(expected->dtype);
  bool complex = etr_scalar_type_is_complex(expected->dtype);
  int64_t index[ETR_MAX_DIMS] = {0};
  int64_t flat = 0;
  do {
    const void *e = etr_element_at(expected,
                                   etr_tensor_offset(expected, index));
    const void *a = etr_element_at(actual, etr_tensor_offset(actual, index));
    bool ok = true;
    double ev = 0;
    double av = 0;
    if (integral) {
      int64_t ei = etr_load_int64(expected->dtype, e);
      int64_t ai = etr_load_int64(actual->dtype, a);
      ok = ei == ai;
      ev = (double)ei;
      av = (double)ai;
    } else if (complex) {
      etr_complex_t ec = etr_load_complex(expected->dtype, e);
      etr_complex_t ac = etr_load_complex(actual->dtype, a);
      ok = close_values(&c->tolerance, expected->dtype, ac.real, ec.real) &&
           close_values(&c->tolerance, expected->dtype, ac.imag, ec.imag);
      ev = ec.real;
      av = ac.real;
    } else {
      ev = etr_load_double(expected->dtype, e);
      av = etr_load_double(actual->dtype, a);
      ok = close_values(&c->tolerance, expected->dtype, av, ev);
    }
    if (!ok) {
      snprintf(what, sizeof(what),
               "argument %zu element %lld: optimized %.9g, reference %.9g",
               arg, (long long)flat, av, ev);
      report_failure(c, case_number, isa, what);
      return false;
    }
    ++flat;
  } while (etr_index_next(index, expected->sizes, expected->dim));
  return true;
}

void etr_diff_key_conversion(etr_diff_case_t *c,
                             etr_scalar_type_t out_dtype) {
  c->converting = true;
  c->out_dtype = out_dtype;
}

static void record_coverage(const etr_diff_case_t *c, etr_isa_t isa,
                            bool specialized) {
  const char *path = getenv("ETREF_DIFF_COVERAGE");
  if (path == NULL) {
    return;
  }
  FILE *file = fopen(path, "a");
  if (file == NULL) {
    return;
  }
  static const char *const kLayouts[] = {"contiguous", "noncontiguous",
                                         "channels_last"};
  char dtype[64];
  if (c->converting) {
    snprintf(dtype, sizeof(dtype), "%s -> %s", etr_scalar_type_name(c->dtype),
             etr_scalar_type_name(c->out_dtype));
  } else {
    snprintf(dtype, sizeof(dtype), "%s", etr_scalar_type_name(c->dtype));
  }
  fprintf(file, "%s,%s,%s,%s,%d\n", c->op, dtype, kLayouts[c->layout],
          etr_isa_name(isa), specialized ? 1 : 0);
  fclose(file);
}

// Whether a fresh out's bytes past its elements (up to its capacity) are
// still fresh_out's 0x5a: a kernel that writes past its out is caught
// here, even where the spare bytes keep ASan quiet.
static bool nothing_past(const etr_diff_case_t *c, int case_number,
                         etr_isa_t isa, size_t arg, const char *run,
                         const etr_tensor_t *out) {
  const uint8_t *bytes = (const uint8_t *)out->data;
  for (size_t at = etr_tensor_nbytes(out); at < out->capacity_bytes; ++at) {
    if (bytes[at] != 0x5a) {
      char what[256];
      snprintf(what, sizeof(what),
               "argument %zu: the %s kernel wrote byte %zu, past the out's "
               "%zu", arg, run, at, etr_tensor_nbytes(out));
      report_failure(c, case_number, isa, what);
      return false;
    }
  }
  return true;
}

// Compares every output of the reference's run and the optimized one;
// false (reported) at the first that differs, or that either run wrote
// past.
static bool outputs_agree(const etr_diff_case_t *c, int case_number,
                          etr_isa_t isa, etr_evalue_t *const *expected,
                          etr_evalue_t *const *actual) {
  for (size_t i = 0; i < c->num_args; ++i) {
    if (!is_output(c, i)) {
      continue;
    }
    if (!compare_outputs(c, case_number, isa, i, expected[i]->u.as_tensor,
                         actual[i]->u.as_tensor)) {
      return false;
    }
    if (c->out_spec[i] != NULL && c->out_list_length[i] == 0 &&
        (!nothing_past(c, case_number, isa, i, "reference",
                       expected[i]->u.as_tensor) ||
         !nothing_past(c, case_number, isa, i, "optimized",
                       actual[i]->u.as_tensor))) {
      return false;
    }
  }
  return true;
}

// Whether the case writes an input in place (etr_diff_out_aliasing): a
// second call would read what the first wrote.
static bool in_place(const etr_diff_case_t *c) {
  for (size_t i = 0; i < c->num_args; ++i) {
    if (c->aliases[i] >= 0) {
      return true;
    }
  }
  return false;
}

// Overwrites every output of `run` with a value no kernel computes here
// by chance (NaN for floating dtypes, all ones for integers, true for
// Bool), so a call that leaves an element unwritten is caught.
static void spoil_outputs(const etr_diff_case_t *c, etr_evalue_t **run) {
  for (size_t i = 0; i < c->num_args; ++i) {
    if (!is_output(c, i)) {
      continue;
    }
    etr_tensor_t *t = run[i]->u.as_tensor;
    size_t bytes = etr_tensor_nbytes(t);
    if (t->data != NULL && bytes > 0) {
      memset(t->data, t->dtype == ETR_BOOL ? 1 : 0xff, bytes);
    }
  }
}

// FNV-1a over one tensor's buffer, into h.
static uint64_t hash_tensor(uint64_t h, const etr_evalue_t *v) {
  if (v == NULL || v->tag != ETR_TAG_TENSOR || v->u.as_tensor == NULL ||
      v->u.as_tensor->data == NULL) {
    return h;
  }
  const etr_tensor_t *t = v->u.as_tensor;
  const uint8_t *bytes = (const uint8_t *)t->data;
  for (size_t i = 0; i < t->capacity_bytes; ++i) {
    h = (h ^ bytes[i]) * 0x100000001b3ull;
  }
  return h;
}

// A hash of input argument i's bytes (a tensor, or a list's tensors): the
// runs share the inputs (build_run), which no kernel may write.
static uint64_t input_hash(const etr_diff_case_t *c, size_t i) {
  uint64_t h = 0xcbf29ce484222325ull;
  const etr_evalue_t *v = c->args[i];
  if (v->tag == ETR_TAG_LIST_TENSOR ||
      v->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
    for (size_t k = 0; k < v->u.as_tensor_list.length; ++k) {
      h = hash_tensor(h, v->u.as_tensor_list.items[k]);
    }
    return h;
  }
  return hash_tensor(h, v);
}

// Whether every input argument still hashes to `hashes` after a run
// (`run`: "reference" or "optimized"); reported when one does not.
static bool inputs_untouched(const etr_diff_case_t *c, int case_number,
                             etr_isa_t isa, const char *run,
                             const uint64_t *hashes) {
  for (size_t i = 0; i < c->num_args; ++i) {
    if (!is_output(c, i) && c->out_list_length[i] == 0 &&
        input_hash(c, i) != hashes[i]) {
      char what[128];
      snprintf(what, sizeof(what),
               "the %s kernel wrote to input argument %zu", run, i);
      report_failure(c, case_number, isa, what);
      return false;
    }
  }
  return true;
}

int etr_diff_run(etr_diff_case_t *c) {
  static char last_op[128];
  static int op_case = 0;
  if (strcmp(last_op, c->op) != 0) {
    snprintf(last_op, sizeof(last_op), "%s", c->op);
    op_case = 0;
  }
  int case_number = op_case++;
  const char *only = getenv("ETREF_DIFF_ONLY");
  if (only != NULL) {
    char id[192];
    snprintf(id, sizeof(id), "%s#%d", c->op, case_number);
    if (strcmp(id, only) != 0) {
      return 0;
    }
  }
  etr_kernel_fn reference = find_in(etr_reference_kernels,
                                    etr_reference_kernel_count, c->op);
  etr_kernel_fn optimized = find_in(etr_optimized_kernels,
                                    etr_optimized_kernel_count, c->op);
  cr_assert_not_null(reference, "no reference kernel for %s", c->op);
  ++g_stats.cases;
  if (optimized == NULL) {
    record_coverage(c, etr_isa_active(), false);
    return 0;
  }
  etr_evalue_t *expected[ETR_DIFF_MAX_ARGS];
  build_run(c, expected);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  // A scratch arena as a method gives its kernels (4 MiB by default),
  // reset before every call.
  static _Alignas(64) uint8_t temp_buffer[4 << 20];
  static etr_arena_t temp;
  etr_arena_init(&temp, temp_buffer, sizeof(temp_buffer));
  etr_kernel_context_t context = {.diag = &diag, .op_name = c->op,
                                  .temp = &temp};
  uint64_t rng = 42;
  context.rng_state = &rng;
  uint64_t hashes[ETR_DIFF_MAX_ARGS];
  for (size_t i = 0; i < c->num_args; ++i) {
    hashes[i] = input_hash(c, i);
  }
  etr_error_t expected_status = reference(&context, expected, c->num_args);
  if (!inputs_untouched(c, case_number, etr_isa_active(), "reference",
                        hashes)) {
    g_stats.failures += 1;
    return 1;
  }
  // The optimized kernel runs twice on each ISA, as an executor calls an
  // instruction whose arguments are fixed: first with a zeroed memo, then
  // (when the first call passed and the case is not in place) vouched
  // for, with that memo, on outputs spoiled in between; both must match.
  // ETREF_DIFF_VOUCHED_EVERY=n makes the second call for every n-th case
  // of an op only (0: none; default 1: all).
  static _Alignas(64) uint8_t memo[ETR_KERNEL_MEMO_BYTES];
  const char *every_text = getenv("ETREF_DIFF_VOUCHED_EVERY");
  long every = every_text != NULL ? strtol(every_text, NULL, 10) : 1;
  bool vouched = every > 0 && case_number % every == 0 && !in_place(c);
  int failures = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    etr_evalue_t *actual[ETR_DIFF_MAX_ARGS];
    build_run(c, actual);
    etr_diag_t run_diag;
    etr_diag_reset(&run_diag);
    context.diag = &run_diag;
    etr_arena_reset(&temp);
    rng = 42;
    uint64_t fallbacks = etr_opt_fallback_calls;
    memset(memo, 0, sizeof(memo));
    context.memo = memo;
    context.args_checked = false;
    etr_error_t status = optimized(&context, actual, c->num_args);
    if (!inputs_untouched(c, case_number, (etr_isa_t)isa, "optimized",
                          hashes)) {
      ++failures;
      continue;
    }
    bool specialized = etr_opt_fallback_calls == fallbacks;
    ++g_stats.runs;
    g_stats.specialized += specialized;
    record_coverage(c, (etr_isa_t)isa, specialized);
    if ((status == ETR_OK) != (expected_status == ETR_OK)) {
      char what[ETR_DIAG_MESSAGE_CAPACITY * 2 + 64];
      snprintf(what, sizeof(what),
               "reference returns %s (%s), optimized %s (%s)",
               etr_error_name(expected_status), diag.message,
               etr_error_name(status), run_diag.message);
      report_failure(c, case_number, (etr_isa_t)isa, what);
      ++failures;
      continue;
    }
    if (status != ETR_OK) {
      continue;  // both rejected: agreement
    }
    if (!outputs_agree(c, case_number, (etr_isa_t)isa, expected, actual)) {
      ++failures;
      continue;
    }
    if (!vouched) {
      continue;
    }
    g_call = 1;
    spoil_outputs(c, actual);
    etr_arena_reset(&temp);
    rng = 42;
    context.args_checked = true;
    status = optimized(&context, actual, c->num_args);
    if (!inputs_untouched(c, case_number, (etr_isa_t)isa, "optimized",
                          hashes)) {
      ++failures;
    } else if (status != ETR_OK) {
      char what[ETR_DIAG_MESSAGE_CAPACITY + 64];
      snprintf(what, sizeof(what), "returns %s (%s)",
               etr_error_name(status), run_diag.message);
      report_failure(c, case_number, (etr_isa_t)isa, what);
      ++failures;
    } else if (!outputs_agree(c, case_number, (etr_isa_t)isa, expected,
                              actual)) {
      ++failures;
    }
    g_call = 0;
  }
  etr_isa_reset();
  g_stats.failures += (uint64_t)failures;
  return failures;
}
