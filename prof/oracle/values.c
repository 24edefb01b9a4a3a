// SPDX-License-Identifier: Apache-2.0
//
// Oracle value sets (see values.h).
#include "prof/oracle/values.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops_reference/support/element.h"

void etr_oracle_values_init(etr_oracle_values_t *values, size_t max_bytes) {
  memset(values, 0, sizeof(*values));
  etr_arena_init_growable(&values->arena, 1 << 20,
                          max_bytes != 0 ? max_bytes : ((size_t)4 << 30));
}

void etr_oracle_values_release(etr_oracle_values_t *values) {
  free(values->records);
  etr_arena_destroy(&values->arena);
  memset(values, 0, sizeof(*values));
}

void etr_oracle_values_reset(etr_oracle_values_t *values) {
  values->count = 0;
  values->failed = false;
  values->failure[0] = '\0';
  // A growable arena keeps its blocks and restarts in the newest one; the
  // older blocks are freed with the set. Start over for a clean slate.
  size_t limit = values->arena.limit;
  etr_arena_destroy(&values->arena);
  etr_arena_init_growable(&values->arena, 1 << 20, limit);
}

static const char *copy_string(etr_oracle_values_t *values, const char *text) {
  if (text == NULL) {
    return NULL;
  }
  size_t length = strlen(text);
  char *copy = (char *)etr_arena_alloc(&values->arena, length + 1, 1);
  if (copy != NULL) {
    memcpy(copy, text, length + 1);
  }
  return copy;
}

static etr_oracle_record_t *new_record(etr_oracle_values_t *values,
                                       etr_diag_t *diag) {
  if (values->count == values->capacity) {
    uint32_t capacity = values->capacity ? values->capacity * 2 : 256;
    etr_oracle_record_t *grown = (etr_oracle_record_t *)realloc(
        values->records, capacity * sizeof(etr_oracle_record_t));
    if (grown == NULL) {
      ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
               "out of memory for %u oracle records", capacity);
      return NULL;
    }
    values->records = grown;
    values->capacity = capacity;
  }
  etr_oracle_record_t *record = &values->records[values->count];
  memset(record, 0, sizeof(*record));
  return record;
}

etr_error_t etr_oracle_values_add_tensor(etr_oracle_values_t *values,
                                         const etr_oracle_key_t *key,
                                         const etr_tensor_t *tensor,
                                         etr_tag_t tag, const char *label,
                                         uint32_t value_index,
                                         etr_diag_t *diag) {
  ETR_CHECK(diag, tensor->dim >= 0 && tensor->dim <= ETR_MAX_DIMS,
            ETR_ERR_INVALID_ARGUMENT, "a tensor of rank %d", (int)tensor->dim);
  etr_oracle_record_t *record = new_record(values, diag);
  if (record == NULL) {
    return ETR_ERR_MEMORY_ALLOCATION_FAILED;
  }
  record->key = *key;
  record->key.debug_name = copy_string(values, key->debug_name);
  record->label = copy_string(values, label);
  record->tag = tag;
  record->value_index = value_index;
  uint8_t dim_order[ETR_MAX_DIMS];
  for (int32_t d = 0; d < tensor->dim; ++d) {
    dim_order[d] = (uint8_t)d;
  }
  etr_tensor_t *copy = &record->tensor;
  size_t nbytes = 0;
  ETR_TRY(etr_checked_nbytes(tensor->dtype, tensor->sizes, tensor->dim,
                             &nbytes, diag));
  void *data = NULL;
  if (tensor->data != NULL || nbytes == 0) {
    data = etr_arena_alloc(&values->arena, nbytes, 64);
    ETR_CHECK(diag, data != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
              "out of memory keeping a %zu-byte value for the oracle",
              nbytes);
  }
  ETR_TRY(etr_tensor_init_with_dim_order(copy, tensor->dtype, tensor->dim,
                                         tensor->sizes, dim_order, data,
                                         nbytes, diag));
  if (data != NULL && nbytes > 0) {
    if (etr_tensor_is_contiguous(tensor)) {
      memcpy(data, tensor->data, nbytes);
    } else {
      size_t element = etr_scalar_type_size(tensor->dtype);
      int64_t index[ETR_MAX_DIMS] = {0};
      size_t at = 0;
      do {
        memcpy((uint8_t *)data + at,
               etr_element_at(tensor, etr_tensor_offset(tensor, index)),
               element);
        at += element;
      } while (etr_index_next(index, tensor->sizes, tensor->dim));
    }
  }
  record->has_data = data != NULL;
  ++values->count;
  return ETR_OK;
}

etr_error_t etr_oracle_values_add_evalue(etr_oracle_values_t *values,
                                         const etr_oracle_key_t *key,
                                         const etr_evalue_t *value,
                                         const char *label,
                                         uint32_t value_index,
                                         uint32_t *added, etr_diag_t *diag) {
  if (added != NULL) {
    *added = 0;
  }
  switch (value->tag) {
    case ETR_TAG_TENSOR:
      if (value->u.as_tensor == NULL) {
        return ETR_OK;
      }
      if (added != NULL) {
        *added = 1;
      }
      return etr_oracle_values_add_tensor(values, key, value->u.as_tensor,
                                          ETR_TAG_TENSOR, label, value_index,
                                          diag);
    case ETR_TAG_LIST_TENSOR:
    case ETR_TAG_LIST_OPTIONAL_TENSOR: {
      size_t length = value->u.as_tensor_list.length;
      for (size_t k = 0; k < length; ++k) {
        const etr_tensor_t *element = etr_tensor_list_get(value, k);
        if (element == NULL) {
          continue;
        }
        etr_oracle_key_t element_key = *key;
        element_key.position = key->position + (uint32_t)k;
        ETR_TRY(etr_oracle_values_add_tensor(values, &element_key, element,
                                             ETR_TAG_TENSOR, label,
                                             UINT32_MAX, diag));
      }
      if (added != NULL) {
        *added = (uint32_t)length;
      }
      return ETR_OK;
    }
    case ETR_TAG_INT:
    case ETR_TAG_DOUBLE:
    case ETR_TAG_BOOL: {
      // Only the member the tag names is read.
      int64_t as_int = value->tag == ETR_TAG_INT ? value->u.as_int : 0;
      double as_double =
          value->tag == ETR_TAG_DOUBLE ? value->u.as_double : 0;
      bool as_bool = value->tag == ETR_TAG_BOOL ? value->u.as_bool : false;
      etr_tensor_t scalar;
      void *data = value->tag == ETR_TAG_INT      ? (void *)&as_int
                   : value->tag == ETR_TAG_DOUBLE ? (void *)&as_double
                                                  : (void *)&as_bool;
      etr_scalar_type_t dtype = value->tag == ETR_TAG_INT      ? ETR_LONG
                                : value->tag == ETR_TAG_DOUBLE ? ETR_DOUBLE
                                                               : ETR_BOOL;
      ETR_TRY(etr_tensor_init(&scalar, dtype, 0, NULL, data,
                              etr_scalar_type_size(dtype), diag));
      if (added != NULL) {
        *added = 1;
      }
      return etr_oracle_values_add_tensor(values, key, &scalar, value->tag,
                                          label, value_index, diag);
    }
    default:
      return ETR_OK;
  }
}

bool etr_oracle_key_equal(const etr_oracle_key_t *a,
                          const etr_oracle_key_t *b) {
  if (a->origin != b->origin || a->position != b->position) {
    return false;
  }
  if (a->origin == ETR_ORACLE_FROM_OUTPUT) {
    return true;
  }
  if (a->chain != b->chain || a->instruction != b->instruction ||
      a->occurrence != b->occurrence) {
    return false;
  }
  if (a->origin == ETR_ORACLE_FROM_INSTRUCTION) {
    return true;
  }
  if (a->debug_id != b->debug_id) {
    return false;
  }
  if ((a->debug_name == NULL) != (b->debug_name == NULL)) {
    return false;
  }
  return a->debug_name == NULL || strcmp(a->debug_name, b->debug_name) == 0;
}

const etr_oracle_record_t *etr_oracle_values_find(
    const etr_oracle_values_t *values, const etr_oracle_key_t *key) {
  for (uint32_t i = 0; i < values->count; ++i) {
    if (etr_oracle_key_equal(&values->records[i].key, key)) {
      return &values->records[i];
    }
  }
  return NULL;
}

void etr_oracle_key_describe(const etr_oracle_key_t *key, char *text,
                             size_t capacity) {
  char occurrence[32] = "";
  if (key->occurrence > 0) {
    snprintf(occurrence, sizeof(occurrence), " (run %u)", key->occurrence);
  }
  switch (key->origin) {
    case ETR_ORACLE_FROM_OUTPUT:
      snprintf(text, capacity, "program output %u", key->position);
      return;
    case ETR_ORACLE_FROM_INSTRUCTION:
      snprintf(text, capacity, "instruction %u:%u%s output %u", key->chain,
               key->instruction, occurrence, key->position);
      return;
    case ETR_ORACLE_FROM_DELEGATE:
      if (key->debug_name != NULL && key->debug_id >= 0) {
        snprintf(text, capacity,
                 "delegate at %u:%u%s debug id %lld (%s) output %u",
                 key->chain, key->instruction, occurrence,
                 (long long)key->debug_id, key->debug_name, key->position);
      } else if (key->debug_name != NULL) {
        snprintf(text, capacity, "delegate at %u:%u%s debug name %s output %u",
                 key->chain, key->instruction, occurrence, key->debug_name,
                 key->position);
      } else {
        snprintf(text, capacity, "delegate at %u:%u%s debug id %lld output %u",
                 key->chain, key->instruction, occurrence,
                 (long long)key->debug_id, key->position);
      }
      return;
  }
  snprintf(text, capacity, "?");
}
