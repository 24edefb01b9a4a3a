// SPDX-License-Identifier: Apache-2.0
//
// Golden-case judge (see golden_harness.h): the kernel's status, its out
// tensors against the expected values with the case's tolerance class, and
// the integrity of its inputs. Values are read with plain memcpy loads
// rather than the kernels' support library, so a bug in the kernels'
// element access cannot hide itself.
#include "ops_reference/golden/golden_harness.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/scalar_type.h"
#include "core/tensor.h"
#include "ops_reference/golden/golden_tolerance.h"

typedef struct message {
  char *buffer;
  size_t capacity;
  size_t used;
} message_t;

__attribute__((format(printf, 2, 3))) static void say(message_t *m,
                                                      const char *format,
                                                      ...) {
  if (m->used >= m->capacity) {
    return;
  }
  va_list args;
  va_start(args, format);
  int written = vsnprintf(m->buffer + m->used, m->capacity - m->used, format,
                          args);
  va_end(args);
  if (written > 0) {
    m->used += (size_t)written;
    if (m->used > m->capacity) {
      m->used = m->capacity;
    }
  }
}

static void describe_tensor(message_t *m, const etr_golden_tensor_t *t) {
  say(m, "%s[", etr_scalar_type_name(t->dtype));
  for (int32_t i = 0; i < t->dim; ++i) {
    say(m, i ? ", %lld" : "%lld", (long long)t->sizes[i]);
  }
  say(m, "]%s", t->strided ? " (strided)" : "");
}

void etr_golden_describe_case(const etr_golden_case_t *golden, char *buffer,
                              size_t capacity) {
  message_t m = {buffer, capacity, 0};
  if (capacity == 0) {
    return;
  }
  buffer[0] = '\0';
  say(&m, "case %u: %s %s %u (%s, %s): ", (unsigned)golden->index,
      golden->source.data, etr_golden_source_name(golden->source_kind),
      (unsigned)golden->sample_index,
      golden->dtype == ETR_GOLDEN_NO_DTYPE
          ? "-"
          : etr_scalar_type_name((etr_scalar_type_t)golden->dtype),
      etr_golden_tolerance_name(golden->tolerance));
  for (size_t i = 0; i < golden->num_args; ++i) {
    const etr_golden_value_t *v = &golden->args[i];
    say(&m, i ? ", " : "");
    switch (v->tag) {
      case ETR_GOLDEN_TENSOR:
        describe_tensor(&m, v->u.as_tensor);
        break;
      case ETR_GOLDEN_INT:
      case ETR_GOLDEN_SCALAR_TYPE:
      case ETR_GOLDEN_MEMORY_FORMAT:
      case ETR_GOLDEN_LAYOUT:
        say(&m, "%lld", (long long)v->u.as_int);
        break;
      case ETR_GOLDEN_DOUBLE:
        say(&m, "%.17g", v->u.as_double);
        break;
      case ETR_GOLDEN_BOOL:
        say(&m, "%s", v->u.as_bool ? "True" : "False");
        break;
      case ETR_GOLDEN_STRING:
        say(&m, "\"%s\"", v->u.as_string.data);
        break;
      case ETR_GOLDEN_INT_LIST:
        say(&m, "[");
        for (size_t j = 0; j < v->u.as_int_list.length; ++j) {
          say(&m, j ? ", %lld" : "%lld", (long long)v->u.as_int_list.items[j]);
        }
        say(&m, "]");
        break;
      case ETR_GOLDEN_TENSOR_LIST:
      case ETR_GOLDEN_OPTIONAL_TENSOR_LIST:
        say(&m, "[");
        for (size_t j = 0; j < v->u.as_tensor_list.length; ++j) {
          say(&m, j ? ", " : "");
          if (v->u.as_tensor_list.items[j] == NULL) {
            say(&m, "None");
          } else {
            describe_tensor(&m, v->u.as_tensor_list.items[j]);
          }
        }
        say(&m, "]");
        break;
      case ETR_GOLDEN_OUT_TENSOR:
        say(&m, "out");
        break;
      default:
        say(&m, "%s", etr_golden_tag_name(v->tag));
        break;
    }
  }
}

// Loads for comparison (integers exactly, floats as double).
static int64_t load_integer(etr_scalar_type_t dtype, const uint8_t *p) {
  switch (dtype) {
    case ETR_BOOL:
    case ETR_BYTE: { uint8_t v; memcpy(&v, p, 1); return v; }
    case ETR_CHAR: { int8_t v; memcpy(&v, p, 1); return v; }
    case ETR_SHORT: { int16_t v; memcpy(&v, p, 2); return v; }
    case ETR_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case ETR_INT: { int32_t v; memcpy(&v, p, 4); return v; }
    case ETR_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case ETR_LONG:
    case ETR_UINT64: { int64_t v; memcpy(&v, p, 8); return v; }
    default: return 0;
  }
}

static double load_real(etr_scalar_type_t dtype, const uint8_t *p) {
  switch (dtype) {
    case ETR_HALF:
    case ETR_COMPLEX_HALF: {
      uint16_t v;
      memcpy(&v, p, 2);
      return etr_half_to_float(v);
    }
    case ETR_BFLOAT16: {
      uint16_t v;
      memcpy(&v, p, 2);
      return etr_bfloat16_to_float(v);
    }
    case ETR_FLOAT:
    case ETR_COMPLEX_FLOAT: { float v; memcpy(&v, p, 4); return v; }
    case ETR_DOUBLE:
    case ETR_COMPLEX_DOUBLE: { double v; memcpy(&v, p, 8); return v; }
    default: return (double)load_integer(dtype, p);
  }
}

static bool close_enough(double actual, double expected,
                         etr_golden_tolerance_t tol) {
  if (isnan(actual) || isnan(expected)) {
    return isnan(actual) && isnan(expected);
  }
  if (tol.exact || isinf(actual) || isinf(expected)) {
    return actual == expected;
  }
  return fabs(actual - expected) <= tol.atol + tol.rtol * fabs(expected);
}

static void say_index(message_t *m, const int64_t *index, int32_t dim) {
  say(m, "[");
  for (int32_t i = 0; i < dim; ++i) {
    say(m, i ? ", %lld" : "%lld", (long long)index[i]);
  }
  say(m, "]");
}

static bool check_permutation(const etr_tensor_t *actual, message_t *m) {
  int64_t n = etr_tensor_numel(actual);
  if (actual->dim != 1) {
    say(m, "randperm out has rank %d", (int)actual->dim);
    return false;
  }
  // n is at most a few dozen in golden cases; a quadratic check is fine.
  size_t element = etr_scalar_type_size(actual->dtype);
  for (int64_t want = 0; want < n; ++want) {
    int64_t found = 0;
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t *p = (const uint8_t *)actual->data +
                         (size_t)(i * actual->strides[0]) * element;
      double value = etr_scalar_type_is_floating(actual->dtype)
                         ? load_real(actual->dtype, p)
                         : (double)load_integer(actual->dtype, p);
      found += value == (double)want;
    }
    if (found != 1) {
      say(m, "randperm output holds %lld copies of %lld", (long long)found,
          (long long)want);
      return false;
    }
  }
  return true;
}

static bool check_tensor(const etr_golden_case_t *golden, size_t which,
                         const etr_golden_tensor_t *expected,
                         const etr_tensor_t *actual, message_t *m) {
  if (actual->dtype != expected->dtype || actual->dim != expected->dim ||
      memcmp(actual->sizes, expected->sizes,
             sizeof(int64_t) * (size_t)expected->dim) != 0) {
    char shape[128];
    etr_tensor_describe(actual, shape, sizeof(shape));
    say(m, "out %zu is %s, expected ", which, shape);
    describe_tensor(m, expected);
    return false;
  }
  if (golden->tolerance == ETR_GOLDEN_TOL_SHAPE_ONLY) {
    return true;
  }
  if (golden->tolerance == ETR_GOLDEN_TOL_PERMUTATION) {
    return check_permutation(actual, m);
  }
  if (expected->numel == 0) {
    return true;
  }
  etr_scalar_type_t dtype = expected->dtype;
  size_t element = etr_scalar_type_size(dtype);
  bool complex = etr_scalar_type_is_complex(dtype);
  bool floating = complex || etr_scalar_type_is_floating(dtype);
  size_t part = complex ? element / 2 : element;
  etr_golden_tolerance_t tol = etr_golden_tolerance(golden->tolerance, dtype);
  int64_t index[ETR_MAX_DIMS] = {0};
  int64_t flat = 0, mismatches = 0, first_flat = -1;
  int64_t first_index[ETR_MAX_DIMS] = {0};
  double first_actual[2] = {0, 0}, first_expected[2] = {0, 0};
  int64_t first_actual_int = 0, first_expected_int = 0;
  do {
    const uint8_t *a = (const uint8_t *)actual->data +
                       (size_t)etr_tensor_offset(actual, index) * element;
    const uint8_t *e = expected->values + (size_t)flat * element;
    bool ok = true;
    if (floating) {
      double av[2] = {load_real(dtype, a),
                      complex ? load_real(dtype, a + part) : 0};
      double ev[2] = {load_real(dtype, e),
                      complex ? load_real(dtype, e + part) : 0};
      ok = close_enough(av[0], ev[0], tol) && close_enough(av[1], ev[1], tol);
      if (!ok && first_flat < 0) {
        memcpy(first_actual, av, sizeof(av));
        memcpy(first_expected, ev, sizeof(ev));
      }
    } else {
      int64_t av = load_integer(dtype, a), ev = load_integer(dtype, e);
      ok = av == ev;
      if (!ok && first_flat < 0) {
        first_actual_int = av;
        first_expected_int = ev;
      }
    }
    if (!ok) {
      if (first_flat < 0) {
        first_flat = flat;
        memcpy(first_index, index, sizeof(index));
      }
      ++mismatches;
    }
    ++flat;
  } while (etr_index_next(index, actual->sizes, actual->dim));
  if (mismatches == 0) {
    return true;
  }
  char shape[128];
  etr_tensor_describe(actual, shape, sizeof(shape));
  say(m, "out %zu %s: %lld of %lld elements differ; first at ", which, shape,
      (long long)mismatches, (long long)expected->numel);
  say_index(m, first_index, actual->dim);
  if (!floating) {
    say(m, ": actual %lld, expected %lld (exact)", (long long)first_actual_int,
        (long long)first_expected_int);
  } else if (complex) {
    say(m, ": actual %.9g%+.9gj, expected %.9g%+.9gj", first_actual[0],
        first_actual[1], first_expected[0], first_expected[1]);
  } else {
    say(m, ": actual %.9g, expected %.9g", first_actual[0], first_expected[0]);
  }
  if (floating) {
    if (tol.exact) {
      say(m, " (exact)");
    } else {
      say(m, " (rtol %g, atol %g)", tol.rtol, tol.atol);
    }
  }
  return false;
}

static bool check_scalar(const etr_golden_value_t *expected,
                         const etr_evalue_t *actual, message_t *m) {
  switch (expected->tag) {
    case ETR_GOLDEN_INT:
      if (actual->tag == ETR_TAG_INT &&
          actual->u.as_int == expected->u.as_int) {
        return true;
      }
      say(m, "return value is %s %lld, expected Int %lld",
          etr_tag_name(actual->tag),
          actual->tag == ETR_TAG_INT ? (long long)actual->u.as_int : 0LL,
          (long long)expected->u.as_int);
      return false;
    case ETR_GOLDEN_BOOL:
      if (actual->tag == ETR_TAG_BOOL &&
          actual->u.as_bool == expected->u.as_bool) {
        return true;
      }
      say(m, "return value is %s, expected Bool %s", etr_tag_name(actual->tag),
          expected->u.as_bool ? "True" : "False");
      return false;
    case ETR_GOLDEN_DOUBLE: {
      etr_golden_tolerance_t exact = {0, 0, true};
      if (actual->tag == ETR_TAG_DOUBLE &&
          close_enough(actual->u.as_double, expected->u.as_double, exact)) {
        return true;
      }
      say(m, "return value is %s %.17g, expected Double %.17g",
          etr_tag_name(actual->tag),
          actual->tag == ETR_TAG_DOUBLE ? actual->u.as_double : 0.0,
          expected->u.as_double);
      return false;
    }
    default:
      say(m, "expected value of kind %s", etr_golden_tag_name(expected->tag));
      return false;
  }
}

void etr_golden_check(const etr_golden_case_t *golden,
                      const etr_golden_call_t *call, etr_error_t status,
                      const etr_diag_t *kernel_diag,
                      etr_golden_verdict_t *verdict) {
  message_t m = {verdict->message, sizeof(verdict->message), 0};
  verdict->message[0] = '\0';
  verdict->passed = false;
  const char *why = kernel_diag != NULL && kernel_diag->code != ETR_OK
                        ? kernel_diag->message
                        : "";
  if (golden->expect == ETR_GOLDEN_EXPECT_ERROR) {
    if (status == ETR_OK) {
      say(&m, "kernel returned Ok where PyTorch raises \"%s\"",
          golden->note.data);
      return;
    }
  } else {
    if (status != ETR_OK) {
      say(&m, "kernel returned %s: %s", etr_error_name(status), why);
      return;
    }
    if (call->num_outs == 0) {
      if (!check_scalar(&golden->expected[0], call->ret, &m)) {
        return;
      }
    }
    for (size_t i = 0; i < call->num_outs; ++i) {
      if (!check_tensor(golden, i, golden->expected[i].u.as_tensor,
                        call->outs[i], &m)) {
        return;
      }
    }
  }
  if ((golden->flags & ETR_GOLDEN_FLAG_MUTATES_INPUTS) == 0) {
    for (size_t i = 0; i < call->num_inputs; ++i) {
      const etr_golden_input_buffer_t *in = &call->inputs[i];
      if (memcmp(in->buffer, in->copy, in->bytes) != 0) {
        say(&m, "kernel wrote into input buffer %zu", i);
        return;
      }
    }
  }
  verdict->passed = true;
}
