// SPDX-License-Identifier: Apache-2.0
//
// The demo delegate (see demo_backend.h).
#include "delegates/demo_backend.h"

#include <math.h>
#include <string.h>

#include "core/platform.h"

#define MAX_DEMO_OPS 64
#define MAX_SHAPE_SPEC 4

typedef enum { DEMO_MM, DEMO_ADD, DEMO_SIN } demo_op_kind_t;

typedef struct {
  demo_op_kind_t kind;
  int64_t numel;
  int64_t debug_handle;
} demo_op_t;

typedef struct {
  demo_op_t ops[MAX_DEMO_OPS];
  size_t count;
} demo_program_t;

// A bounded view of the blob.
typedef struct {
  const char *text;
  size_t length;
  size_t position;
} cursor_t;

static bool take_literal(cursor_t *c, const char *literal) {
  size_t n = strlen(literal);
  if (c->length - c->position < n ||
      memcmp(c->text + c->position, literal, n) != 0) {
    return false;
  }
  c->position += n;
  return true;
}

static bool take_number(cursor_t *c, int64_t *out) {
  int64_t value = 0;
  size_t digits = 0;
  while (c->position < c->length && c->text[c->position] >= '0' &&
         c->text[c->position] <= '9') {
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, c->text[c->position] - '0', &value)) {
      return false;
    }
    ++c->position;
    ++digits;
  }
  *out = value;
  return digits > 0;
}

// Text up to (not including) `stop`; false when `stop` never comes.
static bool take_until(cursor_t *c, char stop, const char **start,
                       size_t *length) {
  *start = c->text + c->position;
  size_t begin = c->position;
  while (c->position < c->length && c->text[c->position] != stop) {
    ++c->position;
  }
  *length = c->position - begin;
  return c->position < c->length;
}

static bool field_equals(const char *start, size_t length,
                         const char *expected) {
  return length == strlen(expected) && memcmp(start, expected, length) == 0;
}

static etr_error_t parse_op(cursor_t *c, demo_op_t *op, etr_diag_t *diag) {
  const char *name = NULL;
  const char *dtype = NULL;
  size_t name_length = 0;
  size_t dtype_length = 0;
  ETR_CHECK(diag,
            take_literal(c, "op:") && take_until(c, ',', &name, &name_length),
            ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "demo blob: expected 'op:<name>,' at byte %zu", c->position);
  ETR_CHECK(diag,
            take_literal(c, ", numel:") && take_number(c, &op->numel) &&
                take_literal(c, ", dtype:") &&
                take_until(c, '<', &dtype, &dtype_length) &&
                take_literal(c, "<debug_handle>") &&
                take_number(c, &op->debug_handle) && take_literal(c, "#"),
            ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "demo blob: malformed op entry near byte %zu", c->position);
  ETR_CHECK(diag, field_equals(dtype, dtype_length, "torch.float32"),
            ETR_ERR_NOT_SUPPORTED,
            "demo backend supports torch.float32 only (debug handle %lld)",
            (long long)op->debug_handle);
  if (field_equals(name, name_length, "demo::aten.mm.default")) {
    op->kind = DEMO_MM;
  } else if (field_equals(name, name_length, "demo::aten.add.Tensor")) {
    op->kind = DEMO_ADD;
  } else if (field_equals(name, name_length, "demo::aten.sin.default")) {
    op->kind = DEMO_SIN;
  } else {
    return ETR_FAIL(diag, ETR_ERR_NOT_SUPPORTED,
                    "demo backend has no op '%.*s'", (int)name_length, name);
  }
  return ETR_OK;
}

static bool demo_is_available(const etr_backend_t *self) {
  (void)self;
  return true;
}

static etr_error_t demo_init(const etr_backend_t *self,
                             etr_backend_init_context_t *context,
                             const uint8_t *processed, size_t processed_size,
                             const etr_compile_spec_t *specs, size_t num_specs,
                             void **handle_out) {
  (void)self;
  etr_diag_t *diag = context->diag;
  ETR_CHECK(diag, num_specs >= 1 && specs[0].value_size >= 1 &&
                      specs[0].value_size <= 8,
            ETR_ERR_INVALID_ARGUMENT,
            "demo backend needs a 'max_value' compile spec");
  uint64_t max_value = 0;
  for (size_t i = 0; i < specs[0].value_size; ++i) {
    max_value |= (uint64_t)specs[0].value[i] << (8 * i);
  }
  ETR_CHECK(diag, max_value <= MAX_SHAPE_SPEC, ETR_ERR_INVALID_ARGUMENT,
            "demo backend: max_value %llu is above %d",
            (unsigned long long)max_value, MAX_SHAPE_SPEC);

  cursor_t c = {(const char *)processed, processed_size, 0};
  int64_t count = 0;
  int64_t version = -1;
  ETR_CHECK(diag,
            take_number(&c, &count) && take_literal(&c, "version:") &&
                take_number(&c, &version) && take_literal(&c, "#"),
            ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "demo blob does not start with '<count>version:<n>#'");
  ETR_CHECK(diag, version == 0, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "demo blob version %lld is not the supported version 0",
            (long long)version);
  ETR_CHECK(diag, count >= 0 && count <= MAX_DEMO_OPS,
            ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "demo blob lists %lld ops (at most %d)", (long long)count,
            MAX_DEMO_OPS);
  demo_program_t *program = (demo_program_t *)etr_arena_calloc(
      context->method_arena, 1, sizeof(demo_program_t), 16);
  ETR_CHECK(diag, program != NULL, ETR_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED,
            "demo backend: out of memory");
  for (int64_t i = 0; i < count; ++i) {
    ETR_TRY(parse_op(&c, &program->ops[i], diag));
  }
  ETR_CHECK(diag, c.position == c.length,
            ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
            "demo blob has %zu unexpected trailing bytes",
            c.length - c.position);
  program->count = (size_t)count;
  *handle_out = program;
  return ETR_OK;
}

static etr_error_t float_arg(etr_backend_execute_context_t *context,
                             etr_evalue_t **args, size_t num_args,
                             size_t index, etr_tensor_t **out) {
  ETR_CHECK(context->diag,
            index < num_args && args[index]->tag == ETR_TAG_TENSOR &&
                args[index]->u.as_tensor->dtype == ETR_FLOAT &&
                etr_tensor_is_contiguous(args[index]->u.as_tensor),
            ETR_ERR_INVALID_ARGUMENT,
            "demo backend: argument %zu must be a contiguous float tensor",
            index);
  *out = args[index]->u.as_tensor;
  return ETR_OK;
}

static etr_error_t run_mm(etr_backend_execute_context_t *context,
                          etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *a = NULL;
  etr_tensor_t *x = NULL;
  etr_tensor_t *z = NULL;
  ETR_TRY(float_arg(context, args, num_args, 0, &a));
  ETR_TRY(float_arg(context, args, num_args, 1, &x));
  ETR_TRY(float_arg(context, args, num_args, num_args - 1, &z));
  ETR_CHECK(context->diag,
            a->dim == 2 && x->dim == 2 && z->dim == 2 &&
                a->sizes[1] == x->sizes[0] && z->sizes[0] == a->sizes[0] &&
                z->sizes[1] == x->sizes[1],
            ETR_ERR_INVALID_ARGUMENT, "demo mm: incompatible shapes");
  const float *a_data = (const float *)a->data;
  const float *x_data = (const float *)x->data;
  float *z_data = (float *)z->data;
  int64_t m = a->sizes[0];
  int64_t k = a->sizes[1];
  int64_t n = x->sizes[1];
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float sum = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        sum += a_data[i * k + p] * x_data[p * n + j];
      }
      z_data[i * n + j] = sum;
    }
  }
  return ETR_OK;
}

static etr_error_t run_add(etr_backend_execute_context_t *context,
                           etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *b = NULL;
  etr_tensor_t *z = NULL;
  ETR_TRY(float_arg(context, args, num_args, 2, &b));
  ETR_TRY(float_arg(context, args, num_args, num_args - 1, &z));
  ETR_CHECK(context->diag, etr_tensor_same_shape(b, z),
            ETR_ERR_INVALID_ARGUMENT, "demo add: b and z shapes differ");
  const float *b_data = (const float *)b->data;
  float *z_data = (float *)z->data;
  int64_t numel = etr_tensor_numel(z);
  for (int64_t i = 0; i < numel; ++i) {
    z_data[i] += b_data[i];
  }
  return ETR_OK;
}

static etr_error_t run_sin(etr_backend_execute_context_t *context,
                           etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *x = NULL;
  etr_tensor_t *y = NULL;
  ETR_TRY(float_arg(context, args, num_args, 0, &x));
  ETR_TRY(float_arg(context, args, num_args, num_args - 1, &y));
  ETR_CHECK(context->diag, etr_tensor_same_shape(x, y),
            ETR_ERR_INVALID_ARGUMENT, "demo sin: x and y shapes differ");
  int64_t numel = etr_tensor_numel(x);
  for (int64_t i = 0; i < numel; ++i) {
    ((float *)y->data)[i] = sinf(((const float *)x->data)[i]);
  }
  return ETR_OK;
}

static etr_error_t demo_execute(const etr_backend_t *self,
                                etr_backend_execute_context_t *context,
                                void *handle, etr_evalue_t **args,
                                size_t num_args) {
  (void)self;
  const demo_program_t *program = (const demo_program_t *)handle;
  ETR_CHECK(context->diag, program != NULL && num_args >= 2,
            ETR_ERR_DELEGATE_INVALID_HANDLE,
            "demo backend: invalid handle or arguments");
  static const char *const kNames[] = {"demo::aten.mm.default",
                                       "demo::aten.add.Tensor",
                                       "demo::aten.sin.default"};
  for (size_t i = 0; i < program->count; ++i) {
    etr_error_t status = ETR_OK;
    uint64_t started = etr_now_ns();
    switch (program->ops[i].kind) {
      case DEMO_MM:
        status = run_mm(context, args, num_args);
        break;
      case DEMO_ADD:
        status = run_add(context, args, num_args);
        break;
      case DEMO_SIN:
        status = run_sin(context, args, num_args);
        break;
    }
    if (status != ETR_OK) {
      etr_diag_prefix(context->diag, "demo op %zu (debug handle %lld)", i,
                      (long long)program->ops[i].debug_handle);
      return status;
    }
    // One profiling event per delegated op, keyed by its debug handle.
    etr_backend_log_event(context, kNames[program->ops[i].kind],
                          program->ops[i].debug_handle, started,
                          etr_now_ns());
  }
  return ETR_OK;
}

static const etr_backend_t kDemoBackend = {
    .id = ETR_DEMO_BACKEND_ID,
    .user = NULL,
    .is_available = demo_is_available,
    .init = demo_init,
    .execute = demo_execute,
    .destroy = NULL,  // the handle lives in the method's arena
};

const etr_backend_t *etr_demo_backend(void) { return &kDemoBackend; }
