// SPDX-License-Identifier: Apache-2.0
//
// Internal to the tolerance policy (policy.h): the built-in operator table
// (policy_table.c) and the class and dtype names the file reader
// (policy_file.c) and the writers (policy.c) share.
#ifndef ETR_PROF_ORACLE_POLICY_INTERNAL_H
#define ETR_PROF_ORACLE_POLICY_INTERNAL_H

#include <stddef.h>

#include "prof/oracle/policy.h"

typedef struct etr_oracle_operator_class {
  const char *name;  // short name: between "::" and the overload's '.'
  etr_oracle_class_t op_class;
} etr_oracle_operator_class_t;

extern const etr_oracle_operator_class_t etr_oracle_operator_classes[];
extern const size_t etr_oracle_operator_class_count;

// "Float", "Double", "Half", "BFloat16" by etr_oracle_float_kind_t.
extern const char
    *const etr_oracle_float_kind_names[ETR_ORACLE_NUM_FLOAT_KINDS];

#endif  // ETR_PROF_ORACLE_POLICY_INTERNAL_H
