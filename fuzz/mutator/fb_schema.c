// SPDX-License-Identifier: Apache-2.0
//
// The .pte, .bpte and .ptd schemas as data, and the location walker (see
// fb_schema.h). Field ids follow the schemas' declaration order, as
// core/program.c, core/method_*.c, core/bundled_program.c and
// core/data_map.c read them.
#include "fuzz/mutator/fb_schema.h"

#include <string.h>

#include "core/flatbuffer.h"

typedef enum {
  F_SCALAR,
  F_TABLE,
  F_STRING,
  F_VEC_SCALAR,
  F_VEC_TABLE,
  F_UNION,       // type tag at id, value at id + 1
  F_NESTED_PTE,  // [ubyte] holding a whole .pte (BundledProgram.program)
} field_kind_t;

// Which hint a vector's length feeds.
enum { H_NONE, H_VALUES, H_OPERATORS, H_DELEGATES, H_INSTRUCTIONS,
       H_BUFFERS, H_SEGMENTS, H_POOLS };

typedef struct table_schema table_schema_t;

typedef struct {
  uint8_t id;
  uint8_t kind;
  uint8_t width;  // scalars and scalar vector elements
  uint8_t role;   // scalars and scalar vector elements; ROLE_GENERIC with
                  // width 1 in a vector means raw bytes (not recorded)
  bool is_signed;
  uint8_t hint;
  const table_schema_t *table;           // F_TABLE, F_VEC_TABLE
  const table_schema_t *const *members;  // F_UNION, by type tag
  uint8_t num_members;
} field_t;

struct table_schema {
  const field_t *fields;
  uint8_t num_fields;
};

#define TABLE(name, ...)                                              \
  static const field_t name##_fields[] = {__VA_ARGS__};               \
  static const table_schema_t name = {                                \
      name##_fields, sizeof(name##_fields) / sizeof(name##_fields[0])}
#define EMPTY_TABLE(name) static const table_schema_t name = {NULL, 0}
#define SCALAR(id, width, role, is_signed) \
  {id, F_SCALAR, width, role, is_signed, H_NONE, NULL, NULL, 0}
#define STRING(id) {id, F_STRING, 0, 0, false, H_NONE, NULL, NULL, 0}
#define SUBTABLE(id, t) {id, F_TABLE, 0, 0, false, H_NONE, &t, NULL, 0}
#define VEC_SCALAR(id, width, role, is_signed, hint) \
  {id, F_VEC_SCALAR, width, role, is_signed, hint, NULL, NULL, 0}
#define VEC_BYTES(id) \
  {id, F_VEC_SCALAR, 1, ETR_ROLE_GENERIC, false, H_NONE, NULL, NULL, 0}
#define VEC_TABLE(id, t, hint) {id, F_VEC_TABLE, 0, 0, false, hint, &t, NULL, 0}
#define UNION(id, members)                                           \
  {id, F_UNION, 0, 0, false, H_NONE, NULL, members,                  \
   sizeof(members) / sizeof(members[0])}

// ---- schema/program.fbs ---------------------------------------------------
EMPTY_TABLE(kNull);
TABLE(kInt, SCALAR(0, 8, ETR_ROLE_GENERIC, true));
TABLE(kBool, SCALAR(0, 1, ETR_ROLE_ENUM, false));
TABLE(kDouble, SCALAR(0, 8, ETR_ROLE_GENERIC, false));
TABLE(kString, STRING(0));
// IntList items are indices of Int EValues (ExecuTorch boxes them).
TABLE(kIntList, VEC_SCALAR(0, 8, ETR_ROLE_VALUE_INDEX, true, H_NONE));
TABLE(kDoubleList, VEC_SCALAR(0, 8, ETR_ROLE_GENERIC, false, H_NONE));
TABLE(kBoolList, VEC_SCALAR(0, 1, ETR_ROLE_ENUM, false, H_NONE));
TABLE(kTensorList, VEC_SCALAR(0, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE));
TABLE(kAllocationDetails, SCALAR(0, 4, ETR_ROLE_MEMORY_ID, false),
      SCALAR(1, 4, ETR_ROLE_MEMORY_OFFSET, false),
      SCALAR(2, 4, ETR_ROLE_MEMORY_OFFSET, false));
TABLE(kExtraTensorInfo, SCALAR(0, 8, ETR_ROLE_BUFFER_INDEX, false), STRING(1),
      SCALAR(2, 1, ETR_ROLE_ENUM, true));
TABLE(kTensor, SCALAR(0, 1, ETR_ROLE_ENUM, true),
      SCALAR(1, 4, ETR_ROLE_MEMORY_OFFSET, true),
      VEC_SCALAR(2, 4, ETR_ROLE_TENSOR_SIZE, true, H_NONE),
      VEC_SCALAR(3, 1, ETR_ROLE_DIM_ORDER, false, H_NONE),
      SCALAR(4, 1, ETR_ROLE_ENUM, false),
      SCALAR(5, 4, ETR_ROLE_BUFFER_INDEX, false),
      SUBTABLE(6, kAllocationDetails), SCALAR(7, 1, ETR_ROLE_ENUM, true),
      SCALAR(8, 1, ETR_ROLE_ENUM, true), SUBTABLE(9, kExtraTensorInfo));
static const table_schema_t *const kKernelTypes[] = {
    NULL,        &kNull,       &kInt,        &kBool,
    &kDouble,    &kTensor,     &kString,     &kIntList,
    &kDoubleList, &kBoolList,  &kTensorList, &kTensorList /* optional */};
TABLE(kEValue, UNION(0, kKernelTypes));

TABLE(kKernelCall, SCALAR(0, 4, ETR_ROLE_OP_INDEX, true),
      VEC_SCALAR(1, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE));
TABLE(kDelegateCall, SCALAR(0, 4, ETR_ROLE_DELEGATE_INDEX, true),
      VEC_SCALAR(1, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE));
TABLE(kMoveCall, SCALAR(0, 4, ETR_ROLE_VALUE_INDEX, true),
      SCALAR(1, 4, ETR_ROLE_VALUE_INDEX, true));
TABLE(kJumpFalseCall, SCALAR(0, 4, ETR_ROLE_VALUE_INDEX, true),
      SCALAR(1, 4, ETR_ROLE_INSTRUCTION, true));
TABLE(kFreeCall, SCALAR(0, 4, ETR_ROLE_VALUE_INDEX, true));
static const table_schema_t *const kInstructionArguments[] = {
    NULL, &kKernelCall, &kDelegateCall, &kMoveCall, &kJumpFalseCall,
    &kFreeCall};
TABLE(kInstruction, UNION(0, kInstructionArguments));
TABLE(kChain, VEC_SCALAR(0, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE),
      VEC_SCALAR(1, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE),
      VEC_TABLE(2, kInstruction, H_INSTRUCTIONS));
TABLE(kOperator, STRING(0), STRING(1));
TABLE(kDataReference, SCALAR(0, 1, ETR_ROLE_ENUM, false),
      SCALAR(1, 4, ETR_ROLE_DATA_INDEX, false));
TABLE(kCompileSpec, STRING(0), VEC_BYTES(1));
TABLE(kBackendDelegate, STRING(0), SUBTABLE(1, kDataReference),
      VEC_TABLE(2, kCompileSpec, H_NONE));
TABLE(kContainerMetadata, STRING(0), STRING(1));
TABLE(kExecutionPlan, STRING(0), SUBTABLE(1, kContainerMetadata),
      VEC_TABLE(2, kEValue, H_VALUES),
      VEC_SCALAR(3, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE),
      VEC_SCALAR(4, 4, ETR_ROLE_VALUE_INDEX, true, H_NONE),
      VEC_TABLE(5, kChain, H_NONE), VEC_TABLE(6, kOperator, H_OPERATORS),
      VEC_TABLE(7, kBackendDelegate, H_DELEGATES),
      VEC_SCALAR(8, 8, ETR_ROLE_POOL_SIZE, true, H_POOLS));
TABLE(kBuffer, VEC_BYTES(0));
TABLE(kInlineData, VEC_BYTES(0));
TABLE(kDataSegment, SCALAR(0, 8, ETR_ROLE_FILE_OFFSET, false),
      SCALAR(1, 8, ETR_ROLE_FILE_OFFSET, false));
TABLE(kSubsegmentOffsets, SCALAR(0, 4, ETR_ROLE_SEGMENT_INDEX, false),
      VEC_SCALAR(1, 8, ETR_ROLE_FILE_OFFSET, false, H_BUFFERS));
TABLE(kNamedData, STRING(0), SCALAR(1, 4, ETR_ROLE_SEGMENT_INDEX, false));
TABLE(kProgram, SCALAR(0, 4, ETR_ROLE_GENERIC, false),
      VEC_TABLE(1, kExecutionPlan, H_NONE),
      VEC_TABLE(2, kBuffer, H_BUFFERS), VEC_TABLE(3, kInlineData, H_NONE),
      VEC_TABLE(4, kDataSegment, H_SEGMENTS),
      SUBTABLE(5, kSubsegmentOffsets),
      VEC_TABLE(6, kSubsegmentOffsets, H_NONE),
      VEC_TABLE(7, kNamedData, H_NONE));

// ---- bundled_program_schema.fbs -------------------------------------------
TABLE(kBundledTensor, SCALAR(0, 1, ETR_ROLE_ENUM, true),
      VEC_SCALAR(1, 4, ETR_ROLE_TENSOR_SIZE, true, H_NONE), VEC_BYTES(2),
      VEC_SCALAR(3, 1, ETR_ROLE_DIM_ORDER, false, H_NONE));
static const table_schema_t *const kBundledValues[] = {
    NULL, &kBundledTensor, &kInt, &kBool, &kDouble};
TABLE(kBundledValue, UNION(0, kBundledValues));
TABLE(kBundledCase, VEC_TABLE(0, kBundledValue, H_NONE),
      VEC_TABLE(1, kBundledValue, H_NONE));
TABLE(kBundledSuite, STRING(0), VEC_TABLE(1, kBundledCase, H_NONE));
static const field_t kBundledProgram_fields[] = {
    SCALAR(0, 4, ETR_ROLE_GENERIC, false),
    VEC_TABLE(1, kBundledSuite, H_NONE),
    {2, F_NESTED_PTE, 1, ETR_ROLE_GENERIC, false, H_NONE, NULL, NULL, 0}};
static const table_schema_t kBundledProgram = {kBundledProgram_fields, 3};

// ---- flat_tensor.fbs --------------------------------------------------------
TABLE(kTensorLayout, SCALAR(0, 1, ETR_ROLE_ENUM, true),
      VEC_SCALAR(1, 4, ETR_ROLE_TENSOR_SIZE, true, H_NONE),
      VEC_SCALAR(2, 1, ETR_ROLE_DIM_ORDER, false, H_NONE));
TABLE(kFlatNamedData, STRING(0), SCALAR(1, 4, ETR_ROLE_SEGMENT_INDEX, false),
      SUBTABLE(2, kTensorLayout));
TABLE(kFlatTensor, SCALAR(0, 4, ETR_ROLE_GENERIC, false),
      VEC_TABLE(1, kDataSegment, H_SEGMENTS),
      VEC_TABLE(2, kFlatNamedData, H_NONE));

// ---- the walk ---------------------------------------------------------------
typedef struct {
  const uint8_t *data;  // the buffer being walked (a nested .pte inside)
  size_t size;
  size_t base;  // where `data` starts in the file
  etr_fb_location_t *locations;
  size_t count;
  size_t capacity;
  size_t visits;
  etr_fb_hints_t *hints;
} walk_t;

static void record(walk_t *w, size_t position, uint8_t width, uint8_t role,
                   bool is_signed) {
  if (w->count == w->capacity || position + width > w->size ||
      w->base + position > UINT32_MAX) {
    return;
  }
  w->locations[w->count++] = (etr_fb_location_t){
      (uint32_t)(w->base + position), width, role, is_signed};
}

static void note_hint(walk_t *w, uint8_t hint, uint32_t length) {
  etr_fb_hints_t *h = w->hints;
  uint32_t *slot = hint == H_VALUES         ? &h->values
                   : hint == H_OPERATORS    ? &h->operators
                   : hint == H_DELEGATES    ? &h->delegates
                   : hint == H_INSTRUCTIONS ? &h->instructions
                   : hint == H_BUFFERS      ? &h->buffers
                   : hint == H_SEGMENTS     ? &h->segments
                                            : NULL;
  if (slot != NULL && length > *slot) {
    *slot = length;
  }
}

// Offset of field `id` inside the table (0 when absent).
static uint16_t field_offset(const walk_t *w, const etr_fb_table_t *t,
                             unsigned id) {
  size_t entry = 4 + 2 * (size_t)id;
  if (entry + 2 > t->vtable_size) {
    return 0;
  }
  return etr_load_u16(w->data + t->vtable_position + entry);
}

static void walk_file(walk_t *w, etr_fb_format_t format);
static void walk_table(walk_t *w, const etr_fb_table_t *t,
                       const table_schema_t *schema, int depth);

static void walk_vector(walk_t *w, const etr_fb_table_t *t, const field_t *f,
                        int depth) {
  uint32_t element_size = f->kind == F_VEC_SCALAR || f->kind == F_NESTED_PTE
                              ? f->width
                              : 4;
  etr_fb_vector_t vector;
  bool present = false;
  if (etr_fb_vector_field(t, f->id, element_size, &vector, &present, NULL) !=
          ETR_OK ||
      !present) {
    return;
  }
  record(w, vector.position - 4, 4, ETR_ROLE_LENGTH, false);
  note_hint(w, f->hint, vector.length);
  if (f->kind == F_NESTED_PTE) {
    walk_t nested = *w;
    nested.data = w->data + vector.position;
    nested.size = vector.length;
    nested.base = w->base + vector.position;
    walk_file(&nested, ETR_FB_FORMAT_PTE);
    w->count = nested.count;
    w->visits = nested.visits;
    return;
  }
  for (uint32_t i = 0; i < vector.length && i < ETR_FB_MAX_ELEMENTS; ++i) {
    size_t position = vector.position + (size_t)i * element_size;
    if (f->kind == F_VEC_SCALAR) {
      if (f->width == 1 && f->role == ETR_ROLE_GENERIC) {
        break;  // raw bytes: byte-level mutation covers them
      }
      record(w, position, f->width, f->role, f->is_signed);
      if (f->hint == H_POOLS) {
        uint64_t bytes = etr_fb_vector_u64(&vector, i);
        w->hints->pool_bytes =
            bytes > w->hints->pool_bytes ? bytes : w->hints->pool_bytes;
      }
      continue;
    }
    record(w, position, 4, ETR_ROLE_UOFFSET, false);
    etr_fb_table_t element;
    if (etr_fb_vector_table(&vector, i, &element, NULL) == ETR_OK) {
      walk_table(w, &element, f->table, depth + 1);
    }
  }
}

static void walk_table(walk_t *w, const etr_fb_table_t *t,
                       const table_schema_t *schema, int depth) {
  if (++w->visits > ETR_FB_MAX_VISITS || depth > 12 || schema == NULL) {
    return;
  }
  record(w, t->position, 4, ETR_ROLE_VTABLE, true);  // soffset to vtable
  record(w, t->vtable_position + 2, 2, ETR_ROLE_VTABLE, false);
  for (uint8_t k = 0; k < schema->num_fields; ++k) {
    const field_t *f = &schema->fields[k];
    uint16_t offset = field_offset(w, t, f->id);
    if (offset == 0) {
      continue;
    }
    record(w, t->vtable_position + 4 + 2 * (size_t)f->id, 2, ETR_ROLE_VTABLE,
           false);
    size_t position = t->position + offset;
    switch (f->kind) {
      case F_SCALAR:
        record(w, position, f->width, f->role, f->is_signed);
        break;
      case F_UNION: {
        record(w, position, 1, ETR_ROLE_UNION_TAG, false);
        uint16_t value_offset = field_offset(w, t, f->id + 1u);
        if (value_offset != 0) {
          record(w, t->position + value_offset, 4, ETR_ROLE_UOFFSET, false);
        }
        uint8_t type = 0;
        etr_fb_table_t value;
        if (etr_fb_union_field(t, f->id, &type, &value, NULL) == ETR_OK &&
            type != 0 && type < f->num_members) {
          walk_table(w, &value, f->members[type], depth + 1);
        }
        break;
      }
      case F_TABLE: {
        record(w, position, 4, ETR_ROLE_UOFFSET, false);
        etr_fb_table_t sub;
        bool present = false;
        if (etr_fb_table_field(t, f->id, &sub, &present, NULL) == ETR_OK &&
            present) {
          walk_table(w, &sub, f->table, depth + 1);
        }
        break;
      }
      case F_STRING: {
        record(w, position, 4, ETR_ROLE_UOFFSET, false);
        if (position + 4 <= w->size) {
          size_t target = position + etr_load_u32(w->data + position);
          record(w, target, 4, ETR_ROLE_LENGTH, false);
        }
        break;
      }
      default:
        record(w, position, 4, ETR_ROLE_UOFFSET, false);
        walk_vector(w, t, f, depth);
        break;
    }
  }
}

etr_fb_format_t etr_fb_detect_format(const uint8_t *data, size_t size) {
  if (etr_fb_has_identifier(data, size, "ET12")) {
    return ETR_FB_FORMAT_PTE;
  }
  if (etr_fb_has_identifier(data, size, "BP08")) {
    return ETR_FB_FORMAT_BPTE;
  }
  if (etr_fb_has_identifier(data, size, "FT01")) {
    return ETR_FB_FORMAT_PTD;
  }
  return ETR_FB_FORMAT_UNKNOWN;
}

static void walk_file(walk_t *w, etr_fb_format_t format) {
  size_t flatbuffer_size = w->size;
  const table_schema_t *schema = NULL;
  record(w, 0, 4, ETR_ROLE_UOFFSET, false);  // root offset
  if (format == ETR_FB_FORMAT_PTE) {
    schema = &kProgram;
    if (w->size >= 32 && memcmp(w->data + 8, "eh00", 4) == 0) {
      record(w, 12, 4, ETR_ROLE_FILE_OFFSET, false);  // header length
      record(w, 16, 8, ETR_ROLE_FILE_OFFSET, false);  // program_size
      record(w, 24, 8, ETR_ROLE_FILE_OFFSET, false);  // segment_base_offset
      record(w, 32, 8, ETR_ROLE_FILE_OFFSET, false);  // segment_data_size
      uint64_t program_size = etr_load_u64(w->data + 16);
      flatbuffer_size = program_size <= w->size ? (size_t)program_size
                                                : w->size;
    }
  } else if (format == ETR_FB_FORMAT_BPTE) {
    schema = &kBundledProgram;
  } else if (format == ETR_FB_FORMAT_PTD) {
    schema = &kFlatTensor;
    if (w->size >= 48 && memcmp(w->data + 8, "FH01", 4) == 0) {
      for (size_t field = 16; field < 48; field += 8) {
        record(w, field, 8, ETR_ROLE_FILE_OFFSET, false);
      }
      uint64_t end = etr_load_u64(w->data + 16) + etr_load_u64(w->data + 24);
      flatbuffer_size = end <= w->size ? (size_t)end : w->size;
    }
  }
  etr_fb_table_t root;
  if (schema == NULL ||
      etr_fb_root(w->data, flatbuffer_size, &root, NULL) != ETR_OK) {
    return;
  }
  walk_table(w, &root, schema, 0);
}

size_t etr_fb_collect(const uint8_t *data, size_t size,
                      etr_fb_location_t *locations, size_t capacity,
                      etr_fb_hints_t *hints) {
  memset(hints, 0, sizeof(*hints));
  etr_fb_format_t format = etr_fb_detect_format(data, size);
  if (format == ETR_FB_FORMAT_UNKNOWN) {
    return 0;
  }
  walk_t w = {data, size, 0, locations, 0, capacity, 0, hints};
  walk_file(&w, format);
  return w.count;
}
