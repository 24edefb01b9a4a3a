// SPDX-License-Identifier: Apache-2.0
//
// Kernel registry and argument readers (see kernel.h).
#include "core/kernel.h"

#include <string.h>

const char *etr_kernel_variant_name(etr_kernel_variant_t variant) {
  switch (variant) {
    case ETR_KERNELS_REFERENCE:
      return "reference";
    case ETR_KERNELS_OPTIMIZED:
      return "optimized";
    default:
      return "unknown";
  }
}

void etr_registry_init(etr_kernel_registry_t *registry) {
  memset(registry, 0, sizeof(*registry));
}

const etr_kernel_entry_t *etr_registry_find(
    const etr_kernel_registry_t *registry, const char *name) {
  for (size_t i = 0; i < registry->count; ++i) {
    if (strcmp(registry->entries[i].name, name) == 0) {
      return &registry->entries[i];
    }
  }
  return NULL;
}

etr_error_t etr_registry_register(etr_kernel_registry_t *registry,
                                  const char *name,
                                  etr_kernel_variant_t variant,
                                  etr_kernel_fn fn, etr_diag_t *diag) {
  ETR_CHECK(diag, name != NULL && fn != NULL &&
                      (unsigned)variant < ETR_NUM_KERNEL_VARIANTS,
            ETR_ERR_INVALID_ARGUMENT, "invalid kernel registration");
  etr_kernel_entry_t *entry =
      (etr_kernel_entry_t *)etr_registry_find(registry, name);
  if (entry == NULL) {
    ETR_CHECK(diag, registry->count < ETR_MAX_REGISTERED_OPS,
              ETR_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS,
              "cannot register '%s': the registry holds %d operators", name,
              ETR_MAX_REGISTERED_OPS);
    entry = &registry->entries[registry->count++];
    entry->name = name;
  }
  ETR_CHECK(diag, entry->variants[variant] == NULL,
            ETR_ERR_REGISTRATION_ALREADY_REGISTERED,
            "a %s kernel for '%s' is already registered",
            etr_kernel_variant_name(variant), name);
  entry->variants[variant] = fn;
  return ETR_OK;
}

etr_error_t etr_registry_register_table(
    etr_kernel_registry_t *registry, const etr_kernel_registration_t *table,
    size_t count, etr_kernel_variant_t variant, etr_diag_t *diag) {
  for (size_t i = 0; i < count; ++i) {
    ETR_TRY(etr_registry_register(registry, table[i].name, variant,
                                  table[i].fn, diag));
  }
  return ETR_OK;
}

etr_kernel_fn etr_registry_select(const etr_kernel_entry_t *entry,
                                  etr_kernel_variant_t variant) {
  if (entry == NULL) {
    return NULL;
  }
  if (variant == ETR_KERNELS_OPTIMIZED &&
      entry->variants[ETR_KERNELS_OPTIMIZED] != NULL) {
    return entry->variants[ETR_KERNELS_OPTIMIZED];
  }
  return entry->variants[ETR_KERNELS_REFERENCE];
}

// ---------------------------------------------------------------------------
// Argument readers.

static const char *op_name(const etr_kernel_context_t *ctx) {
  return ctx->op_name != NULL ? ctx->op_name : "kernel";
}

etr_error_t etr_check_num_args(etr_kernel_context_t *ctx, size_t num_args,
                               size_t expected) {
  ETR_CHECK(ctx->diag, num_args == expected, ETR_ERR_INVALID_PROGRAM,
            "%s expects %zu arguments (schema arguments plus the return "
            "slot) but the instruction passes %zu",
            op_name(ctx), expected, num_args);
  return ETR_OK;
}

// The EValue at `index`, or an error naming the missing argument.
static etr_error_t fetch(etr_kernel_context_t *ctx, etr_evalue_t **args,
                         size_t num_args, size_t index, const char *what,
                         etr_evalue_t **out) {
  ETR_CHECK(ctx->diag, index < num_args && args[index] != NULL,
            ETR_ERR_INVALID_PROGRAM, "%s: argument %zu (%s) is missing",
            op_name(ctx), index, what);
  *out = args[index];
  return ETR_OK;
}

static etr_error_t wrong_tag(etr_kernel_context_t *ctx, size_t index,
                             const char *what, const etr_evalue_t *value,
                             const char *expected) {
  return ETR_FAIL(ctx->diag, ETR_ERR_INVALID_TYPE,
                  "%s: argument %zu (%s) is %s, expected %s", op_name(ctx),
                  index, what, etr_tag_name(value->tag), expected);
}

etr_error_t etr_arg_tensor(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           etr_tensor_t **out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_TENSOR || value->u.as_tensor == NULL) {
    return wrong_tag(ctx, index, what, value, "Tensor");
  }
  *out = value->u.as_tensor;
  return ETR_OK;
}

etr_error_t etr_arg_optional_tensor(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    etr_tensor_t **out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag == ETR_TAG_NONE) {
    *out = NULL;
    return ETR_OK;
  }
  return etr_arg_tensor(ctx, args, num_args, index, what, out);
}

etr_error_t etr_arg_int(etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t num_args, size_t index, const char *what,
                        int64_t *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_INT) {
    return wrong_tag(ctx, index, what, value, "Int");
  }
  *out = value->u.as_int;
  return ETR_OK;
}

etr_error_t etr_arg_optional_int(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 size_t index, const char *what,
                                 bool *present_out, int64_t *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  *present_out = value->tag != ETR_TAG_NONE;
  *out = 0;
  return *present_out ? etr_arg_int(ctx, args, num_args, index, what, out)
                      : ETR_OK;
}

etr_error_t etr_arg_bool(etr_kernel_context_t *ctx, etr_evalue_t **args,
                         size_t num_args, size_t index, const char *what,
                         bool *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_BOOL) {
    return wrong_tag(ctx, index, what, value, "Bool");
  }
  *out = value->u.as_bool;
  return ETR_OK;
}

etr_error_t etr_arg_optional_bool(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args,
                                  size_t index, const char *what,
                                  bool *present_out, bool *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  *present_out = value->tag != ETR_TAG_NONE;
  *out = false;
  return *present_out ? etr_arg_bool(ctx, args, num_args, index, what, out)
                      : ETR_OK;
}

etr_error_t etr_arg_double(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           double *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag == ETR_TAG_DOUBLE) {
    *out = value->u.as_double;
    return ETR_OK;
  }
  if (value->tag == ETR_TAG_INT) {
    *out = (double)value->u.as_int;
    return ETR_OK;
  }
  return wrong_tag(ctx, index, what, value, "Double");
}

etr_error_t etr_arg_optional_double(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    bool *present_out, double *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  *present_out = value->tag != ETR_TAG_NONE;
  *out = 0.0;
  return *present_out ? etr_arg_double(ctx, args, num_args, index, what, out)
                      : ETR_OK;
}

etr_error_t etr_arg_scalar(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           etr_scalar_t *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  switch (value->tag) {
    case ETR_TAG_INT:
      out->kind = ETR_SCALAR_INT;
      out->as_int = value->u.as_int;
      out->as_double = (double)value->u.as_int;
      return ETR_OK;
    case ETR_TAG_DOUBLE:
      out->kind = ETR_SCALAR_DOUBLE;
      out->as_int = 0;
      out->as_double = value->u.as_double;
      return ETR_OK;
    case ETR_TAG_BOOL:
      out->kind = ETR_SCALAR_BOOL;
      out->as_int = value->u.as_bool ? 1 : 0;
      out->as_double = value->u.as_bool ? 1.0 : 0.0;
      return ETR_OK;
    default:
      return wrong_tag(ctx, index, what, value, "Scalar (Int, Double, Bool)");
  }
}

etr_error_t etr_arg_optional_scalar(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    bool *present_out, etr_scalar_t *out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  *present_out = value->tag != ETR_TAG_NONE;
  memset(out, 0, sizeof(*out));
  return *present_out ? etr_arg_scalar(ctx, args, num_args, index, what, out)
                      : ETR_OK;
}

etr_error_t etr_arg_optional_scalar_type(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args,
                                         size_t index, const char *what,
                                         bool *present_out,
                                         etr_scalar_type_t *out) {
  int64_t raw = 0;
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, index, what, present_out,
                               &raw));
  if (!*present_out) {
    *out = ETR_FLOAT;
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag, etr_scalar_type_is_valid((int)raw) && raw == (int)raw,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: argument %zu (%s) is %lld, not a ScalarType", op_name(ctx),
            index, what, (long long)raw);
  *out = (etr_scalar_type_t)raw;
  return ETR_OK;
}

etr_error_t etr_arg_string(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           const char **out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_STRING) {
    return wrong_tag(ctx, index, what, value, "String");
  }
  *out = value->u.as_string.data;
  return ETR_OK;
}

etr_error_t etr_arg_optional_string(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    const char **out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag == ETR_TAG_NONE) {
    *out = NULL;
    return ETR_OK;
  }
  return etr_arg_string(ctx, args, num_args, index, what, out);
}

etr_error_t etr_arg_int_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, size_t index, const char *what,
                             const int64_t **items_out, size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_LIST_INT) {
    return wrong_tag(ctx, index, what, value, "ListInt");
  }
  const int64_t *items = etr_int_list_values(value, length_out);
  ETR_CHECK(ctx->diag, items != NULL || value->u.as_int_list.length == 0,
            ETR_ERR_INVALID_TYPE,
            "%s: argument %zu (%s) has an element that is not an Int",
            op_name(ctx), index, what);
  *items_out = items;
  return ETR_OK;
}

etr_error_t etr_arg_optional_int_list(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args,
                                      size_t index, const char *what,
                                      bool *present_out,
                                      const int64_t **items_out,
                                      size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  *present_out = value->tag != ETR_TAG_NONE;
  *items_out = NULL;
  *length_out = 0;
  return *present_out ? etr_arg_int_list(ctx, args, num_args, index, what,
                                         items_out, length_out)
                      : ETR_OK;
}

etr_error_t etr_arg_double_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args, size_t index,
                                const char *what, const double **items_out,
                                size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_LIST_DOUBLE) {
    return wrong_tag(ctx, index, what, value, "ListDouble");
  }
  *items_out = value->u.as_double_list.items;
  *length_out = value->u.as_double_list.length;
  return ETR_OK;
}

etr_error_t etr_arg_optional_double_list(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args,
                                         size_t index, const char *what,
                                         bool *present_out,
                                         const double **items_out,
                                         size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  *present_out = value->tag != ETR_TAG_NONE;
  *items_out = NULL;
  *length_out = 0;
  return *present_out ? etr_arg_double_list(ctx, args, num_args, index, what,
                                            items_out, length_out)
                      : ETR_OK;
}

etr_error_t etr_arg_bool_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args, size_t index, const char *what,
                              const bool **items_out, size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_LIST_BOOL) {
    return wrong_tag(ctx, index, what, value, "ListBool");
  }
  *items_out = value->u.as_bool_list.items;
  *length_out = value->u.as_bool_list.length;
  return ETR_OK;
}

etr_error_t etr_arg_tensor_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args, size_t index,
                                const char *what, etr_evalue_t **list_out,
                                size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_LIST_TENSOR) {
    return wrong_tag(ctx, index, what, value, "ListTensor");
  }
  size_t length = value->u.as_tensor_list.length;
  for (size_t i = 0; i < length; ++i) {
    ETR_CHECK(ctx->diag, etr_tensor_list_get(value, i) != NULL,
              ETR_ERR_INVALID_TYPE,
              "%s: argument %zu (%s) element %zu is not a Tensor",
              op_name(ctx), index, what, i);
  }
  *list_out = value;
  *length_out = length;
  return ETR_OK;
}

etr_error_t etr_arg_optional_tensor_list(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args,
                                         size_t index, const char *what,
                                         etr_evalue_t **list_out,
                                         size_t *length_out) {
  etr_evalue_t *value = NULL;
  ETR_TRY(fetch(ctx, args, num_args, index, what, &value));
  if (value->tag != ETR_TAG_LIST_OPTIONAL_TENSOR &&
      value->tag != ETR_TAG_LIST_TENSOR) {
    return wrong_tag(ctx, index, what, value, "ListOptionalTensor");
  }
  *list_out = value;
  *length_out = value->u.as_tensor_list.length;
  return ETR_OK;
}
