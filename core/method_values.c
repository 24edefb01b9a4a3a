// SPDX-License-Identifier: Apache-2.0
//
// Method loading, part 1: turning the plan's serialized EValues into runtime
// EValues and binding every tensor to its bytes (see method.h for the rules,
// which follow ExecuTorch's method.cpp parse_values and tensor_parser).
// Each index, size and offset read from the program is checked here; the
// executor relies on these checks.
#include <string.h>

#include "core/method_internal.h"

// Fields of schema/program.fbs tables.
enum { INT_VAL = 0, BOOL_VAL = 0, DOUBLE_VAL = 0, STRING_VAL = 0 };
enum { LIST_ITEMS = 0 };
enum {
  TENSOR_SCALAR_TYPE = 0,
  TENSOR_STORAGE_OFFSET = 1,
  TENSOR_SIZES = 2,
  TENSOR_DIM_ORDER = 3,
  TENSOR_REQUIRES_GRAD = 4,
  TENSOR_DATA_BUFFER_IDX = 5,
  TENSOR_ALLOCATION_INFO = 6,
  TENSOR_LAYOUT = 7,
  TENSOR_SHAPE_DYNAMISM = 8,
  TENSOR_EXTRA_INFO = 9,
};
enum { ALLOC_MEMORY_ID = 0, ALLOC_OFFSET_LOW = 1, ALLOC_OFFSET_HIGH = 2 };
enum { EXTRA_MUTABLE_IDX = 0, EXTRA_FQN = 1, EXTRA_LOCATION = 2 };
enum { LOCATION_SEGMENT = 0, LOCATION_EXTERNAL = 1 };

// Reads the serialized sizes and dim order of a tensor.
static etr_error_t parse_shape(const etr_fb_table_t *table,
                               etr_tensor_t *tensor, etr_diag_t *diag) {
  etr_fb_vector_t sizes;
  etr_fb_vector_t dim_order;
  bool has_sizes = false;
  bool has_dim_order = false;
  ETR_TRY(etr_fb_vector_field(table, TENSOR_SIZES, 4, &sizes, &has_sizes,
                              diag));
  ETR_TRY(etr_fb_vector_field(table, TENSOR_DIM_ORDER, 1, &dim_order,
                              &has_dim_order, diag));
  ETR_CHECK(diag, has_sizes, ETR_ERR_INVALID_PROGRAM,
            "tensor has no sizes field");
  ETR_CHECK(diag, sizes.length <= ETR_MAX_DIMS, ETR_ERR_INVALID_PROGRAM,
            "tensor rank %u is above the limit of %d", sizes.length,
            ETR_MAX_DIMS);
  ETR_CHECK(diag, has_dim_order && dim_order.length == sizes.length,
            ETR_ERR_INVALID_PROGRAM,
            "tensor dim_order has %u entries for rank %u", dim_order.length,
            sizes.length);
  tensor->dim = (int32_t)sizes.length;
  for (uint32_t i = 0; i < sizes.length; ++i) {
    tensor->sizes[i] = etr_fb_vector_i32(&sizes, i);
    tensor->dim_order[i] = etr_fb_vector_u8(&dim_order, i);
    ETR_CHECK(diag, tensor->sizes[i] >= 0, ETR_ERR_INVALID_PROGRAM,
              "tensor size %lld at dim %u is negative",
              (long long)tensor->sizes[i], i);
  }
  ETR_CHECK(diag, etr_dim_order_is_valid(tensor->dim_order, tensor->dim),
            ETR_ERR_INVALID_PROGRAM,
            "tensor dim_order is not a permutation of 0..%d",
            (int)tensor->dim - 1);
  // The strides are products of the sizes: refuse shapes whose products
  // overflow int64 before computing them (the nbytes check comes later).
  int64_t numel = 0;
  ETR_TRY(etr_checked_numel(tensor->sizes, tensor->dim, &numel, diag));
  etr_strides_from_dim_order(tensor->sizes, tensor->dim_order, tensor->dim,
                             tensor->strides);
  return ETR_OK;
}

// Data of an element type must be aligned to the element's size so kernels
// may read it through typed pointers.
static etr_error_t check_aligned(const void *data, const etr_tensor_t *tensor,
                                 const char *what, etr_diag_t *diag) {
  size_t element_size = etr_scalar_type_size(tensor->dtype);
  ETR_CHECK(diag, ((uintptr_t)data % element_size) == 0,
            ETR_ERR_INVALID_PROGRAM,
            "%s data for a %s tensor is not aligned to %zu bytes", what,
            etr_scalar_type_name(tensor->dtype), element_size);
  return ETR_OK;
}

// Resolves a planned tensor's address: pool memory_id - 1 at offset.
static etr_error_t bind_planned(etr_method_t *method, uint32_t value_index,
                                const etr_fb_table_t *allocation,
                                etr_tensor_t *tensor, etr_value_info_t *info,
                                etr_diag_t *diag) {
  uint32_t memory_id = 0;
  uint32_t low = 0;
  uint32_t high = 0;
  ETR_TRY(etr_fb_u32(allocation, ALLOC_MEMORY_ID, 0, &memory_id, diag));
  ETR_TRY(etr_fb_u32(allocation, ALLOC_OFFSET_LOW, 0, &low, diag));
  ETR_TRY(etr_fb_u32(allocation, ALLOC_OFFSET_HIGH, 0, &high, diag));
  uint64_t offset = (uint64_t)low | ((uint64_t)high << 32);
  const etr_memory_plan_t *override = method->config.memory_plan;
  if (override != NULL) {
    ETR_CHECK(diag, value_index < override->num_values,
              ETR_ERR_INVALID_ARGUMENT,
              "the replacement memory plan has no placement for value %u",
              value_index);
    memory_id = override->placements[value_index].memory_id;
    offset = override->placements[value_index].offset;
  }
  ETR_CHECK(diag,
            memory_id >= 1 && memory_id <= method->num_planned_buffers,
            ETR_ERR_INVALID_PROGRAM,
            "tensor memory_id %u is not a planned buffer (the plan has %u; "
            "ids are 1-based)",
            memory_id, method->num_planned_buffers);
  size_t pool_size = method->planned_sizes[memory_id - 1];
  ETR_CHECK(diag, offset <= pool_size && info->nbytes <= pool_size - offset,
            ETR_ERR_INVALID_PROGRAM,
            "tensor of %zu bytes at offset %llu lies outside planned buffer "
            "%u of %zu bytes",
            info->nbytes, (unsigned long long)offset, memory_id, pool_size);
  void *data = method->planned_buffers[memory_id - 1] + offset;
  ETR_TRY(check_aligned(data, tensor, "planned", diag));
  tensor->data = data;
  tensor->capacity_bytes = info->nbytes;
  info->storage = ETR_STORAGE_PLANNED;
  info->memory_id = memory_id;
  info->memory_offset = offset;
  return ETR_OK;
}

// Looks an external tensor up in the .ptd map and checks its layout.
static etr_error_t find_external(etr_method_t *method, const char *name,
                                 const etr_tensor_t *tensor, size_t nbytes,
                                 const uint8_t **data_out, etr_diag_t *diag) {
  const etr_data_map_t *map = method->config.external_data;
  ETR_CHECK(diag, map != NULL, ETR_ERR_INVALID_EXTERNAL_DATA,
            "tensor '%s' lives in an external data file (.ptd) but none was "
            "given",
            name);
  etr_tensor_layout_t layout;
  size_t size = 0;
  ETR_TRY(etr_data_map_find(map, name, &layout, data_out, &size, diag));
  bool same = layout.dtype == tensor->dtype && layout.dim == tensor->dim;
  for (int32_t i = 0; same && i < tensor->dim; ++i) {
    same = layout.sizes[i] == tensor->sizes[i] &&
           layout.dim_order[i] == tensor->dim_order[i];
  }
  ETR_CHECK(diag, same, ETR_ERR_INVALID_EXTERNAL_DATA,
            "external tensor '%s' has a different dtype, shape or dim order "
            "in the data file than in the program",
            name);
  ETR_CHECK(diag, size >= nbytes, ETR_ERR_INVALID_EXTERNAL_DATA,
            "external tensor '%s' holds %zu bytes but needs %zu", name, size,
            nbytes);
  return check_aligned(*data_out, tensor, "external", diag);
}

static etr_error_t parse_tensor(etr_method_t *method, uint32_t value_index,
                                const etr_fb_table_t *table,
                                etr_tensor_t *tensor, etr_value_info_t *info,
                                etr_diag_t *diag) {
  int8_t dtype = 0;
  int32_t storage_offset = 0;
  int8_t dynamism = 0;
  ETR_TRY(etr_fb_i8(table, TENSOR_SCALAR_TYPE, 0, &dtype, diag));
  ETR_TRY(etr_fb_i32(table, TENSOR_STORAGE_OFFSET, 0, &storage_offset, diag));
  ETR_TRY(etr_fb_i8(table, TENSOR_SHAPE_DYNAMISM, 0, &dynamism, diag));
  ETR_CHECK(diag, storage_offset == 0, ETR_ERR_NOT_SUPPORTED,
            "tensor storage_offset %d is not supported (only 0)",
            (int)storage_offset);
  ETR_CHECK(diag, etr_scalar_type_is_valid(dtype), ETR_ERR_INVALID_PROGRAM,
            "invalid scalar type %d", (int)dtype);
  ETR_CHECK(diag, dynamism >= 0 && dynamism <= ETR_SHAPE_DYNAMIC_UNBOUND,
            ETR_ERR_INVALID_PROGRAM, "invalid shape dynamism %d",
            (int)dynamism);
  ETR_CHECK(diag, dynamism != ETR_SHAPE_DYNAMIC_UNBOUND,
            ETR_ERR_NOT_SUPPORTED,
            "fully dynamic (DYNAMIC_UNBOUND) tensor shapes are not supported; "
            "export with upper-bounded dynamic shapes");
  tensor->dtype = (etr_scalar_type_t)dtype;
  tensor->shape_dynamism = (etr_shape_dynamism_t)dynamism;
  ETR_TRY(parse_shape(table, tensor, diag));
  ETR_TRY(etr_checked_nbytes(tensor->dtype, tensor->sizes, tensor->dim,
                             &info->nbytes, diag));

  uint32_t data_buffer_idx = 0;
  bool has_allocation = false;
  bool has_extra = false;
  etr_fb_table_t allocation;
  etr_fb_table_t extra;
  ETR_TRY(etr_fb_u32(table, TENSOR_DATA_BUFFER_IDX, 0, &data_buffer_idx,
                     diag));
  ETR_TRY(etr_fb_table_field(table, TENSOR_ALLOCATION_INFO, &allocation,
                             &has_allocation, diag));
  ETR_TRY(etr_fb_table_field(table, TENSOR_EXTRA_INFO, &extra, &has_extra,
                             diag));
  info->data_buffer_index = data_buffer_idx;
  uint8_t location = LOCATION_SEGMENT;
  if (has_extra) {
    etr_fb_string_t name;
    bool has_name = false;
    ETR_TRY(etr_fb_u8(&extra, EXTRA_LOCATION, LOCATION_SEGMENT, &location,
                      diag));
    ETR_TRY(etr_fb_string_field(&extra, EXTRA_FQN, &name, &has_name, diag));
    info->fully_qualified_name = has_name ? name.chars : NULL;
    ETR_CHECK(diag, location <= LOCATION_EXTERNAL, ETR_ERR_INVALID_PROGRAM,
              "invalid tensor data location %u", (unsigned)location);
    ETR_CHECK(diag, location != LOCATION_EXTERNAL || has_name,
              ETR_ERR_INVALID_EXTERNAL_DATA,
              "external tensor has no fully-qualified name");
  }

  if (has_allocation) {
    ETR_TRY(bind_planned(method, value_index, &allocation, tensor, info,
                         diag));
    const uint8_t *initial = NULL;
    if (location == LOCATION_EXTERNAL) {  // a trainable external weight
      ETR_TRY(find_external(method, info->fully_qualified_name, tensor,
                            info->nbytes, &initial, diag));
    } else if (data_buffer_idx > 0) {     // a mutable buffer's initial value
      ETR_TRY(etr_program_mutable_data(method->program, data_buffer_idx,
                                       info->nbytes, &initial, diag));
    }
    if (initial != NULL && info->nbytes != 0) {
      memcpy(tensor->data, initial, info->nbytes);
    }
    return ETR_OK;
  }
  const uint8_t *constant = NULL;
  if (location == LOCATION_EXTERNAL) {
    ETR_TRY(find_external(method, info->fully_qualified_name, tensor,
                          info->nbytes, &constant, diag));
    info->storage = ETR_STORAGE_EXTERNAL;
  } else if (data_buffer_idx > 0) {
    ETR_TRY(etr_program_constant_data(method->program, data_buffer_idx,
                                      info->nbytes, &constant, diag));
    ETR_TRY(check_aligned(constant, tensor, "constant", diag));
    info->storage = ETR_STORAGE_CONSTANT;
  } else {
    info->storage = ETR_STORAGE_UNBOUND;
    return ETR_OK;
  }
  // Constants are used in place; kernels only read them (the executor
  // refuses to pass read-only memory as an output).
  tensor->data = (void *)constant;
  tensor->capacity_bytes = info->nbytes;
  return ETR_OK;
}

// Copies a [long] vector of value indices into EValue pointers.
static etr_error_t parse_value_refs(etr_method_t *method,
                                    const etr_fb_vector_t *items,
                                    bool allow_none, etr_evalue_t ***out,
                                    etr_diag_t *diag) {
  etr_evalue_t **refs = (etr_evalue_t **)etr_method_alloc(
      method, items->length, sizeof(*refs), "list", diag);
  if (refs == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t j = 0; j < items->length; ++j) {
    int64_t index = items->element_size == 8 ? etr_fb_vector_i64(items, j)
                                             : etr_fb_vector_i32(items, j);
    if (allow_none && index == -1) {
      refs[j] = NULL;
      continue;
    }
    ETR_CHECK(diag, index >= 0 && index < method->num_values,
              ETR_ERR_INVALID_PROGRAM,
              "list element %u refers to value %lld of %u", j,
              (long long)index, method->num_values);
    refs[j] = &method->values[index];
  }
  *out = refs;
  return ETR_OK;
}

static etr_error_t parse_value(etr_method_t *method, uint32_t index,
                               const etr_fb_table_t *serialized,
                               etr_diag_t *diag) {
  etr_evalue_t *value = &method->values[index];
  uint8_t type = 0;
  etr_fb_table_t table;
  ETR_TRY(etr_fb_union_field(serialized, ETR_EVALUE_VAL_TYPE, &type, &table,
                             diag));
  etr_fb_vector_t items;
  bool present = false;
  switch (type) {
    case ETR_KERNEL_TYPE_NULL:
      value->tag = ETR_TAG_NONE;
      return ETR_OK;
    case ETR_KERNEL_TYPE_INT:
      value->tag = ETR_TAG_INT;
      return etr_fb_i64(&table, INT_VAL, 0, &value->u.as_int, diag);
    case ETR_KERNEL_TYPE_BOOL:
      value->tag = ETR_TAG_BOOL;
      return etr_fb_bool(&table, BOOL_VAL, false, &value->u.as_bool, diag);
    case ETR_KERNEL_TYPE_DOUBLE:
      value->tag = ETR_TAG_DOUBLE;
      return etr_fb_f64(&table, DOUBLE_VAL, 0.0, &value->u.as_double, diag);
    case ETR_KERNEL_TYPE_STRING: {
      etr_fb_string_t string;
      ETR_TRY(etr_fb_string_field(&table, STRING_VAL, &string, &present,
                                  diag));
      ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM, "String has no value");
      value->tag = ETR_TAG_STRING;
      value->u.as_string.data = string.chars;
      value->u.as_string.length = string.length;
      return ETR_OK;
    }
    case ETR_KERNEL_TYPE_TENSOR: {
      etr_tensor_t *tensor = (etr_tensor_t *)etr_method_alloc(
          method, 1, sizeof(etr_tensor_t), "tensor", diag);
      if (tensor == NULL) {
        return ETR_ERR_MEMORY_ALLOCATION_FAILED;
      }
      ETR_TRY(parse_tensor(method, index, &table, tensor,
                           &method->value_info[index], diag));
      value->tag = ETR_TAG_TENSOR;
      value->u.as_tensor = tensor;
      return ETR_OK;
    }
    case ETR_KERNEL_TYPE_INT_LIST:
    case ETR_KERNEL_TYPE_TENSOR_LIST:
    case ETR_KERNEL_TYPE_OPTIONAL_TENSOR_LIST: {
      uint32_t width = type == ETR_KERNEL_TYPE_INT_LIST ? 8 : 4;
      ETR_TRY(etr_fb_vector_field(&table, LIST_ITEMS, width, &items, &present,
                                  diag));
      ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM, "list has no items");
      etr_evalue_t **refs = NULL;
      ETR_TRY(parse_value_refs(method, &items,
                               type == ETR_KERNEL_TYPE_OPTIONAL_TENSOR_LIST,
                               &refs, diag));
      if (type == ETR_KERNEL_TYPE_INT_LIST) {
        int64_t *unboxed = (int64_t *)etr_method_alloc(
            method, items.length, sizeof(int64_t), "int list", diag);
        if (unboxed == NULL) {
          return ETR_ERR_MEMORY_ALLOCATION_FAILED;
        }
        value->tag = ETR_TAG_LIST_INT;
        value->u.as_int_list.items = refs;
        value->u.as_int_list.unboxed = unboxed;
        value->u.as_int_list.length = items.length;
        return ETR_OK;
      }
      value->tag = type == ETR_KERNEL_TYPE_TENSOR_LIST
                       ? ETR_TAG_LIST_TENSOR
                       : ETR_TAG_LIST_OPTIONAL_TENSOR;
      value->u.as_tensor_list.items = refs;
      value->u.as_tensor_list.length = items.length;
      return ETR_OK;
    }
    case ETR_KERNEL_TYPE_DOUBLE_LIST: {
      ETR_TRY(etr_fb_vector_field(&table, LIST_ITEMS, 8, &items, &present,
                                  diag));
      ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM, "list has no items");
      // Copied: the serialized doubles need not be 8-byte aligned.
      double *copy = (double *)etr_method_alloc(method, items.length,
                                                sizeof(double), "list", diag);
      if (copy == NULL) {
        return ETR_ERR_MEMORY_ALLOCATION_FAILED;
      }
      for (uint32_t j = 0; j < items.length; ++j) {
        copy[j] = etr_fb_vector_f64(&items, j);
      }
      value->tag = ETR_TAG_LIST_DOUBLE;
      value->u.as_double_list.items = copy;
      value->u.as_double_list.length = items.length;
      return ETR_OK;
    }
    case ETR_KERNEL_TYPE_BOOL_LIST: {
      ETR_TRY(etr_fb_vector_field(&table, LIST_ITEMS, 1, &items, &present,
                                  diag));
      ETR_CHECK(diag, present, ETR_ERR_INVALID_PROGRAM, "list has no items");
      bool *copy = (bool *)etr_method_alloc(method, items.length,
                                            sizeof(bool), "list", diag);
      if (copy == NULL) {
        return ETR_ERR_MEMORY_ALLOCATION_FAILED;
      }
      for (uint32_t j = 0; j < items.length; ++j) {
        copy[j] = etr_fb_vector_u8(&items, j) != 0;
      }
      value->tag = ETR_TAG_LIST_BOOL;
      value->u.as_bool_list.items = copy;
      value->u.as_bool_list.length = items.length;
      return ETR_OK;
    }
    default:
      return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                      "unknown EValue type %u", (unsigned)type);
  }
}

// Lists may refer to values later in the table, so element kinds are
// checked once every value is parsed.
static etr_error_t check_list_elements(const etr_method_t *method,
                                       uint32_t index, etr_diag_t *diag) {
  const etr_evalue_t *value = &method->values[index];
  if (value->tag == ETR_TAG_LIST_INT) {
    for (size_t j = 0; j < value->u.as_int_list.length; ++j) {
      ETR_CHECK(diag, value->u.as_int_list.items[j]->tag == ETR_TAG_INT,
                ETR_ERR_INVALID_PROGRAM,
                "IntList element %zu is %s, not Int", j,
                etr_tag_name(value->u.as_int_list.items[j]->tag));
    }
  } else if (value->tag == ETR_TAG_LIST_TENSOR ||
             value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR) {
    bool optional = value->tag == ETR_TAG_LIST_OPTIONAL_TENSOR;
    for (size_t j = 0; j < value->u.as_tensor_list.length; ++j) {
      const etr_evalue_t *item = value->u.as_tensor_list.items[j];
      ETR_CHECK(diag,
                (item == NULL && optional) ||
                    (item != NULL && (item->tag == ETR_TAG_TENSOR ||
                                      (optional && item->tag ==
                                                       ETR_TAG_NONE))),
                ETR_ERR_INVALID_PROGRAM,
                "%s element %zu is %s, not Tensor", etr_tag_name(value->tag),
                j, item != NULL ? etr_tag_name(item->tag) : "missing");
    }
  }
  return ETR_OK;
}

etr_error_t etr_method_parse_values(etr_method_t *method,
                                    const etr_fb_vector_t *values,
                                    etr_diag_t *diag) {
  method->num_values = values->length;
  method->values = (etr_evalue_t *)etr_method_alloc(
      method, values->length, sizeof(etr_evalue_t), "values", diag);
  method->value_info = (etr_value_info_t *)etr_method_alloc(
      method, values->length, sizeof(etr_value_info_t), "value info", diag);
  if (method->values == NULL || method->value_info == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  for (uint32_t i = 0; i < values->length; ++i) {
    etr_fb_table_t serialized;
    etr_error_t status = etr_fb_vector_table(values, i, &serialized, diag);
    if (status == ETR_OK) {
      status = parse_value(method, i, &serialized, diag);
    }
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "value %u", i);
      return status;
    }
  }
  for (uint32_t i = 0; i < values->length; ++i) {
    etr_error_t status = check_list_elements(method, i, diag);
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "value %u", i);
      return status;
    }
  }
  return ETR_OK;
}
