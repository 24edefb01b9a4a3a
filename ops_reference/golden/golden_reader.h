// SPDX-License-Identifier: Apache-2.0
//
// Reader of the golden-vector files in datasets/golden/ (format: see
// datasets/golden/FORMAT.md; writer: datasets/ops/golden_format.py).
//
// A golden file holds the cases of one out-variant kernel: the EValues the
// kernel receives (out tensors as allocation specs) and what PyTorch
// produced, or the marker that the kernel must reject the arguments.
//
// The file is untrusted input: every length, count, rank, size, stride and
// tag is checked against the bytes that remain and against the limits
// below before anything is allocated or copied, and a malformed file gives
// InvalidProgram with a message naming the case and byte offset, never a
// crash. Parsed cases point into the file's bytes for tensor values (read
// them with memcpy: they are not aligned) and into `arena` for everything
// else, so a case lives until the caller resets the arena.
#ifndef ETR_OPS_REFERENCE_GOLDEN_GOLDEN_READER_H
#define ETR_OPS_REFERENCE_GOLDEN_GOLDEN_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/scalar_type.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_GOLDEN_VERSION 1u

// Largest tensor the reader accepts, in elements: for stored values and for
// the storage a strided view spans (offset plus reach). Golden cases are
// kilobytes; this bounds what a corrupt file can make a caller allocate.
#define ETR_GOLDEN_MAX_ELEMENTS ((int64_t)1 << 24)

// EValue tags: 0..11 are ExecuTorch's (core/evalue.h); the others exist
// only in golden files.
typedef enum etr_golden_tag {
  ETR_GOLDEN_NONE = 0,
  ETR_GOLDEN_TENSOR = 1,
  ETR_GOLDEN_STRING = 2,
  ETR_GOLDEN_DOUBLE = 3,
  ETR_GOLDEN_INT = 4,
  ETR_GOLDEN_BOOL = 5,
  ETR_GOLDEN_BOOL_LIST = 6,
  ETR_GOLDEN_DOUBLE_LIST = 7,
  ETR_GOLDEN_INT_LIST = 8,
  ETR_GOLDEN_TENSOR_LIST = 9,
  ETR_GOLDEN_OPTIONAL_TENSOR_LIST = 11,
  ETR_GOLDEN_SCALAR_TYPE = 12,    // an Int naming a ScalarType
  ETR_GOLDEN_MEMORY_FORMAT = 13,  // an Int naming a MemoryFormat
  ETR_GOLDEN_LAYOUT = 14,         // an Int naming a Layout
  ETR_GOLDEN_OUT_TENSOR = 32,     // an out tensor to allocate
  ETR_GOLDEN_OUT_TENSOR_LIST = 33,  // a Tensor[] out
} etr_golden_tag_t;

typedef enum etr_golden_expect {
  ETR_GOLDEN_EXPECT_VALUES = 0,  // the kernel returns OK; compare outputs
  ETR_GOLDEN_EXPECT_ERROR = 1,   // the kernel must return a non-OK code
} etr_golden_expect_t;

// Tolerance classes; their rtol/atol are in golden_tolerance.h.
typedef enum etr_golden_tolerance_class {
  ETR_GOLDEN_TOL_EXACT = 0,
  ETR_GOLDEN_TOL_DEFAULT = 1,
  ETR_GOLDEN_TOL_TRANSCENDENTAL = 2,
  ETR_GOLDEN_TOL_ACCUMULATION = 3,
  ETR_GOLDEN_TOL_LOW_PRECISION = 4,
  ETR_GOLDEN_TOL_SHAPE_ONLY = 5,
  ETR_GOLDEN_TOL_PERMUTATION = 6,
  ETR_GOLDEN_NUM_TOLERANCE_CLASSES = 7,
} etr_golden_tolerance_class_t;

// Where a case came from (for messages).
typedef enum etr_golden_source {
  ETR_GOLDEN_SOURCE_SAMPLE = 0,
  ETR_GOLDEN_SOURCE_REFERENCE = 1,
  ETR_GOLDEN_SOURCE_ERROR = 2,
  ETR_GOLDEN_SOURCE_BOUNDARY = 3,
  ETR_GOLDEN_SOURCE_LAYOUT = 4,
  ETR_GOLDEN_SOURCE_BACKWARD = 5,
  ETR_GOLDEN_SOURCE_DERIVED = 6,
  ETR_GOLDEN_NUM_SOURCES = 7,
} etr_golden_source_t;

// Case flag: the kernel's schema writes a non-out argument (for example
// the running statistics of _native_batch_norm_legit), so the input
// buffers may legitimately change.
#define ETR_GOLDEN_FLAG_MUTATES_INPUTS 1u
#define ETR_GOLDEN_KNOWN_FLAGS ETR_GOLDEN_FLAG_MUTATES_INPUTS

#define ETR_GOLDEN_NO_DTYPE 255

typedef struct etr_golden_string {
  const char *data;  // NUL-terminated copy in the arena
  size_t length;
} etr_golden_string_t;

// A tensor: logical values in row-major order and, for a strided input
// view, the strides and storage offset to rebuild it with.
typedef struct etr_golden_tensor {
  etr_scalar_type_t dtype;
  int32_t dim;
  int64_t sizes[ETR_MAX_DIMS];
  bool strided;
  int64_t strides[ETR_MAX_DIMS];  // valid when strided; all >= 0
  int64_t storage_offset;         // valid when strided; >= 0
  int64_t numel;
  int64_t storage_elements;  // strided: offset + reach + 1 (0 if empty);
                             // dense: numel
  const uint8_t *values;     // numel * element size bytes, unaligned
  size_t value_bytes;
} etr_golden_tensor_t;

// An out tensor to allocate: its dtype, the sizes PyTorch's result has,
// and (optionally) the dim order PyTorch's result had.
typedef struct etr_golden_out_spec {
  etr_scalar_type_t dtype;
  int32_t dim;
  int64_t sizes[ETR_MAX_DIMS];
  bool has_dim_order;
  uint8_t dim_order[ETR_MAX_DIMS];
} etr_golden_out_spec_t;

typedef struct etr_golden_value {
  etr_golden_tag_t tag;
  union {
    int64_t as_int;  // INT, SCALAR_TYPE, MEMORY_FORMAT, LAYOUT
    double as_double;
    bool as_bool;
    etr_golden_string_t as_string;
    etr_golden_tensor_t *as_tensor;
    struct {
      size_t length;
      int64_t *items;
    } as_int_list;
    struct {
      size_t length;
      double *items;
    } as_double_list;
    struct {
      size_t length;
      bool *items;
    } as_bool_list;
    struct {
      size_t length;
      etr_golden_tensor_t **items;  // NULL items only in optional lists
    } as_tensor_list;
    etr_golden_out_spec_t *as_out;
    struct {
      size_t length;
      etr_golden_out_spec_t *items;
    } as_out_list;
  } u;
} etr_golden_value_t;

typedef struct etr_golden_case {
  uint32_t index;  // position in the file, from 0
  etr_golden_expect_t expect;
  etr_golden_tolerance_class_t tolerance;
  etr_golden_source_t source_kind;
  uint8_t dtype;  // the dtype the case exercises, or ETR_GOLDEN_NO_DTYPE
  uint32_t sample_index;
  uint32_t flags;
  etr_golden_string_t source;  // OpInfo name or "boundary:<name>"
  etr_golden_string_t note;    // for error cases, PyTorch's error
  size_t num_args;
  etr_golden_value_t *args;
  size_t num_expected;
  etr_golden_value_t *expected;
} etr_golden_case_t;

typedef struct etr_golden_file {
  const uint8_t *data;
  size_t size;
  size_t position;  // start of the next case
  uint32_t version;
  uint32_t case_count;
  uint32_t cases_read;
  etr_golden_string_t generator;
  etr_golden_string_t provenance;
  etr_golden_string_t kernel;  // "aten::add.out"
  etr_golden_string_t schema;
} etr_golden_file_t;

// Checks the header of `data` (size bytes, which must outlive the file)
// and copies its strings into `arena`.
// InvalidProgram: bad magic, unsupported version or flags, truncation.
// MemoryAllocationFailed: the arena is too small for the strings.
etr_error_t etr_golden_open(etr_golden_file_t *file, const uint8_t *data,
                            size_t size, etr_arena_t *arena,
                            etr_diag_t *diag);

// Parses the next case into *out, allocating from `arena`.
// NotFound once every case has been read (and the file has no trailing
// bytes); InvalidProgram for a malformed case (the message names it);
// MemoryAllocationFailed when the arena is too small.
etr_error_t etr_golden_next_case(etr_golden_file_t *file, etr_arena_t *arena,
                                 etr_golden_case_t *out, etr_diag_t *diag);

// Names for messages: "default", "sample", "OutTensor".
const char *etr_golden_tolerance_name(etr_golden_tolerance_class_t tolerance);
const char *etr_golden_source_name(etr_golden_source_t source);
const char *etr_golden_tag_name(etr_golden_tag_t tag);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_GOLDEN_GOLDEN_READER_H
