// SPDX-License-Identifier: Apache-2.0
//
// EValue helpers (see evalue.h).
#include "core/evalue.h"

const char *etr_tag_name(etr_tag_t tag) {
  static const char *const kNames[] = {
      "None",     "Tensor",     "String",   "Double",
      "Int",      "Bool",       "ListBool", "ListDouble",
      "ListInt",  "ListTensor", "ListScalar", "ListOptionalTensor",
  };
  _Static_assert(sizeof(kNames) / sizeof(kNames[0]) ==
                     ETR_TAG_LIST_OPTIONAL_TENSOR + 1,
                 "every tag needs a name");
  if ((int)tag < 0 || (size_t)tag >= sizeof(kNames) / sizeof(kNames[0])) {
    return "Unknown";
  }
  return kNames[tag];
}

const int64_t *etr_int_list_values(etr_evalue_t *value, size_t *length_out) {
  *length_out = 0;
  if (value == NULL || value->tag != ETR_TAG_LIST_INT) {
    return NULL;
  }
  etr_int_list_t *list = &value->u.as_int_list;
  for (size_t i = 0; i < list->length; ++i) {
    const etr_evalue_t *item = list->items[i];
    if (item == NULL || item->tag != ETR_TAG_INT) {
      return NULL;
    }
    list->unboxed[i] = item->u.as_int;
  }
  *length_out = list->length;
  return list->unboxed;
}

etr_tensor_t *etr_tensor_list_get(const etr_evalue_t *value, size_t index) {
  if (value == NULL ||
      (value->tag != ETR_TAG_LIST_TENSOR &&
       value->tag != ETR_TAG_LIST_OPTIONAL_TENSOR) ||
      index >= value->u.as_tensor_list.length) {
    return NULL;
  }
  const etr_evalue_t *item = value->u.as_tensor_list.items[index];
  if (item == NULL || item->tag != ETR_TAG_TENSOR) {
    return NULL;
  }
  return item->u.as_tensor;
}
