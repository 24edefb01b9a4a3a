// SPDX-License-Identifier: Apache-2.0
//
// The reference kernel table: operator name -> kernel, in the order of
// ops_reference.h. core/ registers it with etr_registry_register_table;
// the test registry_test checks that every name is unique and well formed.
#include "ops_reference/ops_reference.h"

const etr_kernel_registration_t etr_reference_kernels[] = {
    {"aten::add.out", etr_ref_add_out},
    {"aten::add.Scalar_out", etr_ref_add_scalar_out},
    {"aten::sub.out", etr_ref_sub_out},
    {"aten::sub.Scalar_out", etr_ref_sub_scalar_out},
    {"aten::mul.out", etr_ref_mul_out},
    {"aten::mul.Scalar_out", etr_ref_mul_scalar_out},
    {"aten::div.out", etr_ref_div_out},
    {"aten::div.out_mode", etr_ref_div_out_mode},
    {"aten::div.Scalar_out", etr_ref_div_scalar_out},
};

const size_t etr_reference_kernel_count =
    sizeof(etr_reference_kernels) / sizeof(etr_reference_kernels[0]);
