// SPDX-License-Identifier: Apache-2.0
//
// The kernel calling convention and the kernel registry.
//
// A kernel is called as ExecuTorch calls its boxed kernels: with the
// instruction's EValues, one per schema argument in schema order (defaults
// already materialized by the exporter), plus one trailing slot for the
// return value, which for out-variants is the out tensor again (or a
// TensorList when the op has several outs). `aten::add.out(self, other, *,
// alpha, out)` receives 5 EValues and args[3] == args[4].
//
// Kernels check their arguments with the etr_arg_* readers below (which fail
// with InvalidType or InvalidArgument and a message naming the argument),
// never allocate, never abort, and report failures by returning a code after
// recording a message in ctx->diag.
//
// The registry maps an operator name ("aten::add.out") to a reference and an
// optimized kernel. A method binds each KernelCall to one variant when it
// loads; an op with no optimized kernel falls back to its reference kernel.
#ifndef ETR_CORE_KERNEL_H
#define ETR_CORE_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/evalue.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct etr_kernel_context {
  etr_diag_t *diag;    // where a failing kernel records why (may be NULL)
  etr_arena_t *temp;   // scratch memory, reset after every instruction; may
                       // be NULL when the caller provides none
  const char *op_name; // "aten::add.out", for messages
  uint64_t *rng_state; // state of the seeded generator random ops draw
                       // from (the method seeds it from its config); may be
                       // NULL
  // Dry run (the verifier's shape and dtype check before a program runs):
  // the kernel checks its arguments and resizes its outputs exactly as in a
  // real call, then returns ETR_OK without reading or writing any tensor
  // data (data pointers may be NULL). Every kernel honours this flag.
  bool dry_run;
  // The instruction's kernel state (etr_instruction_t.state): NULL for an
  // ordinary kernel call; set by load-time passes that bind a kernel to
  // data prepared once per method (ops_optimized/fuse/fuse.h).
  const void *state;
  // An earlier call of this instruction with the same arguments (the same
  // values, dtypes, shapes, dim orders and data pointers; only the data
  // differ) returned ETR_OK, so every check that does not read tensor data
  // passes again and the outputs already have their shapes. Never set in a
  // dry run. Kernels may skip such checks.
  bool args_checked;
  // ETR_KERNEL_MEMO_BYTES that stay with the instruction from call to call
  // (aligned for any type), for a kernel to keep what it concluded from its
  // arguments: zeroed before every call that is not vouched for, so what a
  // kernel finds there when args_checked is set it wrote itself, on these
  // same arguments. NULL when the instruction has none (calls outside a
  // method, arguments that are not fixed).
  void *memo;
  // Bit a (a < 64) set when args[a] is a tensor of read-only constant
  // bytes (the program's constant segment or the .ptd data map; the
  // executor never passes them as an output) and the arguments are fixed
  // (memo is not NULL): its data is then the same on every call too, so a
  // kernel may keep in memo what it concluded from that data (the
  // convolution: whether its weight is finite). 0 outside a method.
  uint64_t constant_args;
} etr_kernel_context_t;

enum { ETR_KERNEL_MEMO_BYTES = 256 };

typedef etr_error_t (*etr_kernel_fn)(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args);

typedef struct etr_kernel_registration {
  const char *name;  // operator name with overload: "aten::add.out"
  etr_kernel_fn fn;
} etr_kernel_registration_t;

typedef enum etr_kernel_variant {
  ETR_KERNELS_REFERENCE = 0,
  ETR_KERNELS_OPTIMIZED = 1,
  ETR_NUM_KERNEL_VARIANTS = 2,
} etr_kernel_variant_t;

// "reference" / "optimized".
const char *etr_kernel_variant_name(etr_kernel_variant_t variant);

typedef struct etr_kernel_entry {
  const char *name;
  etr_kernel_fn variants[ETR_NUM_KERNEL_VARIANTS];
} etr_kernel_entry_t;

#define ETR_MAX_REGISTERED_OPS 1024

typedef struct etr_kernel_registry {
  etr_kernel_entry_t entries[ETR_MAX_REGISTERED_OPS];
  size_t count;
} etr_kernel_registry_t;

void etr_registry_init(etr_kernel_registry_t *registry);

// Registers `fn` as the `variant` kernel of `name`.
// RegistrationAlreadyRegistered if that slot is taken,
// RegistrationExceedingMaxKernels when the registry is full.
etr_error_t etr_registry_register(etr_kernel_registry_t *registry,
                                  const char *name,
                                  etr_kernel_variant_t variant,
                                  etr_kernel_fn fn, etr_diag_t *diag);

// Registers every entry of a table (stops at the first error).
etr_error_t etr_registry_register_table(
    etr_kernel_registry_t *registry, const etr_kernel_registration_t *table,
    size_t count, etr_kernel_variant_t variant, etr_diag_t *diag);

// The entry for `name`, or NULL.
const etr_kernel_entry_t *etr_registry_find(
    const etr_kernel_registry_t *registry, const char *name);

// The kernel to run for `variant`: the optimized one when asked for and
// present, else the reference one (NULL when neither exists).
etr_kernel_fn etr_registry_select(const etr_kernel_entry_t *entry,
                                  etr_kernel_variant_t variant);

// ----------------------------------------------------------------------------
// Argument readers. Each checks `index < num_args` and the EValue's tag and
// names the argument in its message ("aten::add.out: argument 1 (other) is
// Int, expected Tensor"). `what` is the schema argument name.

// A scalar argument (Scalar in a schema): Int, Double or Bool.
typedef enum etr_scalar_kind {
  ETR_SCALAR_INT = 0,
  ETR_SCALAR_DOUBLE = 1,
  ETR_SCALAR_BOOL = 2,
} etr_scalar_kind_t;

typedef struct etr_scalar {
  etr_scalar_kind_t kind;
  int64_t as_int;     // valid for INT and BOOL (0/1)
  double as_double;   // valid for every kind
} etr_scalar_t;

etr_error_t etr_check_num_args(etr_kernel_context_t *ctx, size_t num_args,
                               size_t expected);

etr_error_t etr_arg_tensor(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           etr_tensor_t **out);
// None gives NULL.
etr_error_t etr_arg_optional_tensor(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    etr_tensor_t **out);
etr_error_t etr_arg_int(etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t num_args, size_t index, const char *what,
                        int64_t *out);
etr_error_t etr_arg_optional_int(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 size_t index, const char *what,
                                 bool *present_out, int64_t *out);
etr_error_t etr_arg_bool(etr_kernel_context_t *ctx, etr_evalue_t **args,
                         size_t num_args, size_t index, const char *what,
                         bool *out);
etr_error_t etr_arg_optional_bool(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args,
                                  size_t index, const char *what,
                                  bool *present_out, bool *out);
// A `float` schema argument: Double (Int accepted, as the exporter may box
// an integral default as Int).
etr_error_t etr_arg_double(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           double *out);
etr_error_t etr_arg_optional_double(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    bool *present_out, double *out);
etr_error_t etr_arg_scalar(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           etr_scalar_t *out);
etr_error_t etr_arg_optional_scalar(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    bool *present_out, etr_scalar_t *out);
// ScalarType/MemoryFormat/Layout arguments are boxed as Int.
etr_error_t etr_arg_optional_scalar_type(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args,
                                         size_t index, const char *what,
                                         bool *present_out,
                                         etr_scalar_type_t *out);
// A `str` argument; None gives NULL for the optional form.
etr_error_t etr_arg_string(etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args, size_t index, const char *what,
                           const char **out);
etr_error_t etr_arg_optional_string(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, const char *what,
                                    const char **out);
// int[] (IntList; unboxed on read).
etr_error_t etr_arg_int_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, size_t index, const char *what,
                             const int64_t **items_out, size_t *length_out);
// int[]? ; None gives *present_out false.
etr_error_t etr_arg_optional_int_list(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args,
                                      size_t index, const char *what,
                                      bool *present_out,
                                      const int64_t **items_out,
                                      size_t *length_out);
etr_error_t etr_arg_double_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args, size_t index,
                                const char *what, const double **items_out,
                                size_t *length_out);
etr_error_t etr_arg_optional_double_list(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args,
                                         size_t index, const char *what,
                                         bool *present_out,
                                         const double **items_out,
                                         size_t *length_out);
etr_error_t etr_arg_bool_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args, size_t index, const char *what,
                              const bool **items_out, size_t *length_out);
// Tensor[] and Tensor?[] : the list EValue; read elements with
// etr_tensor_list_get (every element of a Tensor[] is checked non-None).
etr_error_t etr_arg_tensor_list(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args, size_t index,
                                const char *what, etr_evalue_t **list_out,
                                size_t *length_out);
etr_error_t etr_arg_optional_tensor_list(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args, size_t num_args,
                                         size_t index, const char *what,
                                         etr_evalue_t **list_out,
                                         size_t *length_out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_CORE_KERNEL_H
