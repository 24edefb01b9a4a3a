// SPDX-License-Identifier: Apache-2.0
//
// EValues: the tagged values a method's instructions read and write.
//
// Tags are numbered as ExecuTorch's runtime Tag (runtime/core/tag.h), so
// diagnostics quote the same numbers. Lists follow ExecuTorch's boxing:
// an IntList holds pointers to Int EValues (so a SymInt produced by
// aten::sym_size at run time is seen by every list that uses it) and
// unboxes into a scratch array on read; TensorList and OptionalTensorList
// hold pointers to Tensor EValues (NULL for a None element). A Tensor EValue
// points to an etr_tensor_t; a MoveCall copies the EValue, so source and
// destination share one tensor, exactly as in ExecuTorch.
#ifndef ETR_CORE_EVALUE_H
#define ETR_CORE_EVALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_tag {
  ETR_TAG_NONE = 0,
  ETR_TAG_TENSOR = 1,
  ETR_TAG_STRING = 2,
  ETR_TAG_DOUBLE = 3,
  ETR_TAG_INT = 4,
  ETR_TAG_BOOL = 5,
  ETR_TAG_LIST_BOOL = 6,
  ETR_TAG_LIST_DOUBLE = 7,
  ETR_TAG_LIST_INT = 8,
  ETR_TAG_LIST_TENSOR = 9,
  ETR_TAG_LIST_SCALAR = 10,  // unused by programs; kept for numbering
  ETR_TAG_LIST_OPTIONAL_TENSOR = 11,
} etr_tag_t;

struct etr_evalue;

typedef struct etr_int_list {
  struct etr_evalue **items;  // each an Int EValue
  int64_t *unboxed;           // scratch of `length` entries, filled on read
  size_t length;
} etr_int_list_t;

typedef struct etr_tensor_list {
  struct etr_evalue **items;  // each a Tensor EValue; NULL = None (optional)
  size_t length;
} etr_tensor_list_t;

typedef struct etr_evalue {
  etr_tag_t tag;
  union {
    int64_t as_int;
    double as_double;
    bool as_bool;
    struct {
      const char *data;  // NUL-terminated
      size_t length;
    } as_string;
    etr_tensor_t *as_tensor;
    etr_int_list_t as_int_list;
    struct {
      const double *items;
      size_t length;
    } as_double_list;
    struct {
      const bool *items;
      size_t length;
    } as_bool_list;
    etr_tensor_list_t as_tensor_list;  // LIST_TENSOR and LIST_OPTIONAL_TENSOR
  } u;
} etr_evalue_t;

// ExecuTorch's tag name ("Tensor", "ListInt"), or "Unknown".
const char *etr_tag_name(etr_tag_t tag);

// Refreshes and returns the unboxed values of an IntList EValue. Returns
// NULL (and leaves *length_out 0) if a boxed item is not an Int.
const int64_t *etr_int_list_values(etr_evalue_t *value, size_t *length_out);

// Element `index` of a TensorList/OptionalTensorList (NULL for None).
etr_tensor_t *etr_tensor_list_get(const etr_evalue_t *value, size_t index);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_EVALUE_H
