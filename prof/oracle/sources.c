// SPDX-License-Identifier: Apache-2.0
//
// Candidate values from ETDump files and .npy files (see sources.h).
#include "prof/oracle/sources.h"

#include <stdlib.h>
#include <string.h>

#include "core/npy.h"
#include "core/scalar_type.h"

static bool has_debug_events(const etr_etdump_t *etdump,
                             const etr_etdump_block_t *block) {
  for (uint32_t e = 0; e < block->num_events; ++e) {
    if (etdump->events[block->first_event + e].type == ETR_ETDUMP_DEBUG) {
      return true;
    }
  }
  return false;
}

uint32_t etr_oracle_etdump_debug_blocks(const etr_etdump_t *etdump) {
  uint32_t count = 0;
  for (uint32_t b = 0; b < etdump->num_blocks; ++b) {
    count += has_debug_events(etdump, &etdump->blocks[b]);
  }
  return count;
}

int32_t etr_oracle_etdump_block(const etr_etdump_t *etdump,
                                int32_t bundled_index, uint32_t ordinal) {
  if (bundled_index >= 0) {
    for (uint32_t b = 0; b < etdump->num_blocks; ++b) {
      if (etdump->blocks[b].bundled_input_index == bundled_index &&
          has_debug_events(etdump, &etdump->blocks[b])) {
        return (int32_t)b;
      }
    }
  }
  // A block tagged with another test case is that case's run, never this
  // one's.
  uint32_t seen = 0;
  for (uint32_t b = 0; b < etdump->num_blocks; ++b) {
    int32_t tag = etdump->blocks[b].bundled_input_index;
    if (bundled_index >= 0 && tag >= 0 && tag != bundled_index) {
      continue;
    }
    if (has_debug_events(etdump, &etdump->blocks[b])) {
      if (seen == ordinal) {
        return (int32_t)b;
      }
      ++seen;
    }
  }
  return -1;
}

// The tensor at `offset` in the buffer, checked to lie inside it.
static etr_error_t buffer_tensor(const etr_etdump_tensor_t *logged,
                                 const uint8_t *buffer, size_t buffer_size,
                                 etr_tensor_t *out, etr_diag_t *diag) {
  ETR_CHECK(diag, etr_scalar_type_is_valid(logged->scalar_type),
            ETR_ERR_INVALID_PROGRAM, "unknown scalar type %d",
            (int)logged->scalar_type);
  etr_scalar_type_t dtype = (etr_scalar_type_t)logged->scalar_type;
  ETR_CHECK(diag, logged->dim >= 0 && logged->dim <= ETR_MAX_DIMS,
            ETR_ERR_INVALID_PROGRAM, "a tensor of rank %d", logged->dim);
  int64_t numel = 0;
  ETR_TRY(etr_checked_numel(logged->sizes, logged->dim, &numel, diag));
  size_t element = etr_scalar_type_size(dtype);
  ETR_CHECK(diag, element > 0, ETR_ERR_INVALID_PROGRAM,
            "scalar type %s has no element size",
            etr_scalar_type_name(dtype));
  memset(out, 0, sizeof(*out));
  out->dtype = dtype;
  out->dim = logged->dim;
  for (int32_t d = 0; d < logged->dim; ++d) {
    out->sizes[d] = logged->sizes[d];
    out->dim_order[d] = (uint8_t)d;
  }
  // Span in elements: the last element's offset + 1.
  uint64_t span = numel > 0 ? 1 : 0;
  if (logged->has_strides) {
    for (int32_t d = 0; d < logged->dim && numel > 0; ++d) {
      ETR_CHECK(diag, logged->strides[d] >= 0, ETR_ERR_INVALID_PROGRAM,
                "a negative stride (%lld)", (long long)logged->strides[d]);
      uint64_t reach = 0;
      ETR_CHECK(diag,
                !__builtin_mul_overflow((uint64_t)(logged->sizes[d] - 1),
                                        (uint64_t)logged->strides[d],
                                        &reach) &&
                    !__builtin_add_overflow(span, reach, &span),
                ETR_ERR_INVALID_PROGRAM, "strides overflow");
      out->strides[d] = logged->strides[d];
    }
  } else {
    span = (uint64_t)numel;
    etr_strides_from_dim_order(out->sizes, out->dim_order, out->dim,
                               out->strides);
  }
  if (numel == 0) {
    // Nothing to read (ExecuTorch logs an empty tensor at offset -1).
    out->data = NULL;
    out->capacity_bytes = 0;
    return ETR_OK;
  }
  uint64_t bytes = 0;
  ETR_CHECK(diag,
            !__builtin_mul_overflow(span, (uint64_t)element, &bytes) &&
                logged->offset >= 0 &&
                (uint64_t)logged->offset <= buffer_size &&
                bytes <= buffer_size - (uint64_t)logged->offset,
            ETR_ERR_INVALID_PROGRAM,
            "the tensor's %llu bytes at offset %lld are outside the %zu-byte "
            "debug buffer",
            (unsigned long long)bytes, (long long)logged->offset,
            buffer_size);
  out->data = numel > 0 ? (void *)(buffer + logged->offset) : NULL;
  out->capacity_bytes = (size_t)bytes;
  return ETR_OK;
}

typedef struct {
  uint32_t chain;
  uint32_t instruction;
  uint32_t groups;  // executions seen
} seen_t;

typedef struct {
  int64_t debug_id;
  const char *debug_name;
  uint32_t count;
} debug_group_t;

etr_error_t etr_oracle_values_from_etdump(const etr_etdump_t *etdump,
                                          uint32_t block_index,
                                          const uint8_t *debug_buffer,
                                          size_t debug_buffer_size,
                                          etr_oracle_values_t *values,
                                          etr_diag_t *diag) {
  ETR_CHECK(diag, block_index < etdump->num_blocks, ETR_ERR_INVALID_ARGUMENT,
            "ETDump block %u does not exist", block_index);
  const etr_etdump_block_t *block = &etdump->blocks[block_index];
  seen_t *seen = (seen_t *)calloc(block->num_events + 1, sizeof(seen_t));
  debug_group_t *groups =
      (debug_group_t *)calloc(block->num_events + 1, sizeof(debug_group_t));
  if (seen == NULL || groups == NULL) {
    free(seen);
    free(groups);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory reading ETDump debug events");
  }
  uint32_t num_seen = 0;
  uint32_t num_groups = 0;
  bool in_group = false;
  uint32_t chain = 0, instruction = 0, occurrence = 0, position = 0;
  uint32_t output_position = 0;
  etr_error_t status = ETR_OK;
  for (uint32_t e = 0; status == ETR_OK && e < block->num_events; ++e) {
    const etr_etdump_event_t *event = &etdump->events[block->first_event + e];
    if (event->type != ETR_ETDUMP_DEBUG) {
      continue;
    }
    etr_oracle_key_t key = {.debug_id = -1};
    bool delegate = event->delegate_debug_id_int >= 0 ||
                    event->delegate_debug_id_str != NULL;
    if (event->is_output) {
      key.origin = ETR_ORACLE_FROM_OUTPUT;
      key.position = output_position;
    } else {
      if (event->chain_index < 0 || event->chain_index > UINT32_MAX ||
          event->instruction_id < 0) {
        status = ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                          "names no instruction (chain %lld, instruction "
                          "%d)",
                          (long long)event->chain_index,
                          event->instruction_id);
        break;
      }
      uint32_t c = (uint32_t)event->chain_index;
      uint32_t i = (uint32_t)event->instruction_id;
      if (!in_group || c != chain || i != instruction) {
        // A new execution of (c, i): its occurrence is how many came before.
        uint32_t s = 0;
        while (s < num_seen &&
               !(seen[s].chain == c && seen[s].instruction == i)) {
          ++s;
        }
        if (s == num_seen) {
          seen[num_seen].chain = c;
          seen[num_seen].instruction = i;
          ++num_seen;
        }
        occurrence = seen[s].groups++;
        chain = c;
        instruction = i;
        position = 0;
        num_groups = 0;
        in_group = true;
      }
      key.chain = chain;
      key.instruction = instruction;
      key.occurrence = occurrence;
      if (delegate) {
        key.origin = ETR_ORACLE_FROM_DELEGATE;
        key.debug_id = event->delegate_debug_id_int;
        key.debug_name =
            event->delegate_debug_id_int >= 0 ? NULL
                                              : event->delegate_debug_id_str;
        uint32_t g = 0;
        while (g < num_groups &&
               !(groups[g].debug_id == key.debug_id &&
                 ((groups[g].debug_name == NULL && key.debug_name == NULL) ||
                  (groups[g].debug_name != NULL && key.debug_name != NULL &&
                   strcmp(groups[g].debug_name, key.debug_name) == 0)))) {
          ++g;
        }
        if (g == num_groups) {
          groups[num_groups].debug_id = key.debug_id;
          groups[num_groups].debug_name = key.debug_name;
          groups[num_groups].count = 0;
          ++num_groups;
        }
        key.position = groups[g].count;
        groups[g].count +=
            event->num_tensors > 0 ? event->num_tensors : 1;
      } else {
        key.origin = ETR_ORACLE_FROM_INSTRUCTION;
        key.position = position;
        position += event->num_tensors > 0 ? event->num_tensors : 1;
      }
    }
    if (event->is_output) {
      output_position += event->num_tensors > 0 ? event->num_tensors : 1;
    }
    const char *label = event->name[0] != '\0' ? event->name : NULL;
    if (event->num_tensors > 0) {
      for (uint32_t t = 0; status == ETR_OK && t < event->num_tensors; ++t) {
        etr_tensor_t tensor;
        status = buffer_tensor(&etdump->tensors[event->first_tensor + t],
                               debug_buffer, debug_buffer_size, &tensor,
                               diag);
        if (status == ETR_OK) {
          etr_oracle_key_t element_key = key;
          element_key.position = key.position + t;
          status = etr_oracle_values_add_tensor(values, &element_key, &tensor,
                                                ETR_TAG_TENSOR, label,
                                                UINT32_MAX, diag);
        }
      }
    } else {
      etr_evalue_t scalar = {.tag = ETR_TAG_NONE};
      switch (event->value_type) {
        case ETR_ETDUMP_VALUE_INT:
          scalar.tag = ETR_TAG_INT;
          scalar.u.as_int = event->int_value;
          break;
        case ETR_ETDUMP_VALUE_BOOL:
          scalar.tag = ETR_TAG_BOOL;
          scalar.u.as_bool = event->bool_value;
          break;
        case ETR_ETDUMP_VALUE_FLOAT:
        case ETR_ETDUMP_VALUE_DOUBLE:
          scalar.tag = ETR_TAG_DOUBLE;
          scalar.u.as_double = event->double_value;
          break;
        default:
          break;  // Null, String, an empty list: takes its place only
      }
      if (scalar.tag != ETR_TAG_NONE) {
        status = etr_oracle_values_add_evalue(values, &key, &scalar, label,
                                              UINT32_MAX, NULL, diag);
      }
    }
    if (status != ETR_OK) {
      etr_diag_prefix(diag, "ETDump block %u (%s) event %u", block_index,
                      block->name, e);
    }
  }
  free(seen);
  free(groups);
  return status;
}

etr_error_t etr_oracle_values_from_npy(const char *const *paths,
                                       size_t count,
                                       etr_oracle_values_t *values,
                                       etr_diag_t *diag) {
  for (size_t k = 0; k < count; ++k) {
    etr_npy_array_t array;
    ETR_TRY(etr_npy_load_file(paths[k], 0, &array, diag));
    etr_oracle_key_t key = {.origin = ETR_ORACLE_FROM_OUTPUT,
                            .position = (uint32_t)k,
                            .debug_id = -1};
    etr_error_t status = etr_oracle_values_add_tensor(
        values, &key, &array.tensor, ETR_TAG_TENSOR, paths[k], UINT32_MAX,
        diag);
    etr_npy_array_release(&array);
    ETR_TRY(status);
  }
  return ETR_OK;
}
