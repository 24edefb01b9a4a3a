// SPDX-License-Identifier: Apache-2.0
//
// The .pte loader (see program.h). Layout checks follow ExecuTorch's
// runtime/executor/program.cpp and schema/extended_header.cpp; every offset
// and size read from the file is checked, with overflow-safe arithmetic,
// before it is used.
#include "core/program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"

// Extended header: "eh00" at byte 8, then its length and three uint64s.
#define EXTENDED_HEADER_OFFSET 8
#define EXTENDED_HEADER_MIN_LENGTH 24
#define EXTENDED_HEADER_FULL_LENGTH 32

enum { SEGMENT_OFFSET = 0, SEGMENT_SIZE = 1 };
enum { SUBSEGMENT_SEGMENT_INDEX = 0, SUBSEGMENT_OFFSETS = 1 };
enum { NAMED_DATA_KEY = 0, NAMED_DATA_SEGMENT_INDEX = 1 };
enum { BUFFER_STORAGE = 0 };
enum { INLINE_DATA_DATA = 0 };

// Prints the 4 identifier bytes safely (they may be anything).
static void describe_identifier(const uint8_t *bytes, char out[17]) {
  size_t used = 0;
  for (int i = 0; i < 4; ++i) {
    unsigned char c = bytes[i];
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out[used++] = (char)c;
    } else {
      used += (size_t)snprintf(out + used, 17 - used, "\\x%02x", c);
    }
  }
  out[used] = '\0';
}

static etr_error_t check_identifier(const uint8_t *data, size_t size,
                                    etr_diag_t *diag) {
  ETR_CHECK(diag, size >= 8, ETR_ERR_INVALID_PROGRAM,
            "file of %zu bytes is too small to be a .pte program", size);
  if (memcmp(data + 4, ETR_PROGRAM_IDENTIFIER, 4) == 0) {
    return ETR_OK;
  }
  char found[17];
  describe_identifier(data + 4, found);
  if (memcmp(data + 4, "BP", 2) == 0) {
    return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                    "file identifier '%s' is a BundledProgram (.bpte), not a "
                    "program; load it as a bundled program",
                    found);
  }
  if (memcmp(data + 4, "ET", 2) == 0) {
    return ETR_FAIL(diag, ETR_ERR_NOT_SUPPORTED,
                    "program identifier '%s' is not '%s': the file was "
                    "written for an incompatible ExecuTorch schema version",
                    found, ETR_PROGRAM_IDENTIFIER);
  }
  return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                  "file identifier '%s' is not '%s': not an ExecuTorch "
                  "program",
                  found, ETR_PROGRAM_IDENTIFIER);
}

static etr_error_t parse_extended_header(etr_program_t *program,
                                         etr_diag_t *diag) {
  const uint8_t *data = program->data;
  size_t size = program->size;
  program->program_size = size;
  if (size < EXTENDED_HEADER_OFFSET + 8 ||
      memcmp(data + EXTENDED_HEADER_OFFSET, "eh00", 4) != 0) {
    return ETR_OK;  // no header: the FlatBuffer is the whole file
  }
  program->has_extended_header = true;
  uint32_t length = etr_load_u32(data + EXTENDED_HEADER_OFFSET + 4);
  ETR_CHECK(diag, length >= EXTENDED_HEADER_MIN_LENGTH,
            ETR_ERR_INVALID_PROGRAM,
            "extended header length %u is below the minimum of %d", length,
            EXTENDED_HEADER_MIN_LENGTH);
  size_t readable = length >= EXTENDED_HEADER_FULL_LENGTH
                        ? EXTENDED_HEADER_FULL_LENGTH
                        : EXTENDED_HEADER_MIN_LENGTH;
  ETR_CHECK(diag, size >= EXTENDED_HEADER_OFFSET + readable,
            ETR_ERR_INVALID_PROGRAM,
            "file of %zu bytes ends inside its extended header", size);
  const uint8_t *fields = data + EXTENDED_HEADER_OFFSET + 8;
  program->program_size = etr_load_u64(fields);
  program->segment_base_offset = etr_load_u64(fields + 8);
  program->segment_data_size =
      readable == EXTENDED_HEADER_FULL_LENGTH ? etr_load_u64(fields + 16) : 0;

  ETR_CHECK(diag,
            program->program_size >= EXTENDED_HEADER_OFFSET + readable &&
                program->program_size <= size,
            ETR_ERR_INVALID_PROGRAM,
            "extended header program_size %llu is outside the %zu-byte file",
            (unsigned long long)program->program_size, size);
  if (program->segment_base_offset != 0) {
    ETR_CHECK(diag,
              program->segment_base_offset >= program->program_size &&
                  program->segment_base_offset <= size,
              ETR_ERR_INVALID_PROGRAM,
              "segment_base_offset %llu is not between program_size %llu "
              "and the file size %zu",
              (unsigned long long)program->segment_base_offset,
              (unsigned long long)program->program_size, size);
    uint64_t end = 0;
    ETR_CHECK(diag,
              !__builtin_add_overflow(program->segment_base_offset,
                                      program->segment_data_size, &end) &&
                  end <= size,
              ETR_ERR_INVALID_PROGRAM,
              "segment data (%llu bytes from offset %llu) runs past the end "
              "of the %zu-byte file: the file is truncated",
              (unsigned long long)program->segment_data_size,
              (unsigned long long)program->segment_base_offset, size);
  } else {
    ETR_CHECK(diag, program->segment_data_size == 0, ETR_ERR_INVALID_PROGRAM,
              "extended header declares %llu bytes of segment data but no "
              "segment base offset",
              (unsigned long long)program->segment_data_size);
  }
  return ETR_OK;
}

// End of the area segments may occupy.
static uint64_t segment_area_end(const etr_program_t *program) {
  if (program->segment_data_size != 0) {
    return program->segment_base_offset + program->segment_data_size;
  }
  return program->size;
}

static etr_error_t check_segments(const etr_program_t *program,
                                  etr_diag_t *diag) {
  for (uint32_t i = 0; i < program->segments.length; ++i) {
    etr_fb_table_t segment;
    ETR_TRY(etr_fb_vector_table(&program->segments, i, &segment, diag));
    uint64_t offset = 0;
    uint64_t size = 0;
    ETR_TRY(etr_fb_u64(&segment, SEGMENT_OFFSET, 0, &offset, diag));
    ETR_TRY(etr_fb_u64(&segment, SEGMENT_SIZE, 0, &size, diag));
    if (size == 0) {
      continue;  // the exporter lists empty segments even without a header
    }
    ETR_CHECK(diag, program->segment_base_offset != 0,
              ETR_ERR_INVALID_PROGRAM,
              "segment %u holds %llu bytes but the file has no segment area "
              "(no extended header)",
              i, (unsigned long long)size);
    uint64_t start = 0;
    uint64_t end = 0;
    ETR_CHECK(diag,
              !__builtin_add_overflow(program->segment_base_offset, offset,
                                      &start) &&
                  !__builtin_add_overflow(start, size, &end) &&
                  end <= segment_area_end(program),
              ETR_ERR_INVALID_PROGRAM,
              "segment %u (offset %llu, %llu bytes) lies outside the "
              "segment data of the %zu-byte file",
              i, (unsigned long long)offset, (unsigned long long)size,
              program->size);
  }
  return ETR_OK;
}

// Reads a SubsegmentOffsets table and resolves its segment.
static etr_error_t parse_subsegment(const etr_program_t *program,
                                    const etr_fb_table_t *table,
                                    const char *what, etr_fb_vector_t *offsets,
                                    const uint8_t **segment_out,
                                    size_t *segment_size_out,
                                    etr_diag_t *diag) {
  uint32_t segment_index = 0;
  bool present = false;
  ETR_TRY(etr_fb_u32(table, SUBSEGMENT_SEGMENT_INDEX, 0, &segment_index,
                     diag));
  ETR_TRY(etr_fb_vector_field(table, SUBSEGMENT_OFFSETS, 8, offsets, &present,
                              diag));
  if (offsets->length <= 1) {
    *segment_out = NULL;
    *segment_size_out = 0;
    return ETR_OK;  // only the placeholder: nothing stored
  }
  etr_error_t status = etr_program_segment(program, segment_index, segment_out,
                                           segment_size_out, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", what);
  }
  return status;
}

static etr_error_t parse_root(etr_program_t *program, etr_diag_t *diag) {
  const etr_fb_table_t *root = &program->root;
  bool present = false;
  ETR_TRY(etr_fb_u32(root, ETR_PROGRAM_VERSION, 0, &program->version, diag));
  ETR_TRY(etr_fb_vector_field(root, ETR_PROGRAM_EXECUTION_PLAN, 4,
                              &program->execution_plans, &present, diag));
  ETR_TRY(etr_fb_vector_field(root, ETR_PROGRAM_CONSTANT_BUFFER, 4,
                              &program->constant_buffers, &present, diag));
  ETR_TRY(etr_fb_vector_field(root, ETR_PROGRAM_BACKEND_DELEGATE_DATA, 4,
                              &program->delegate_data, &present, diag));
  ETR_TRY(etr_fb_vector_field(root, ETR_PROGRAM_SEGMENTS, 4,
                              &program->segments, &present, diag));
  ETR_TRY(etr_fb_vector_field(root, ETR_PROGRAM_NAMED_DATA, 4,
                              &program->named_data, &present, diag));
  ETR_TRY(check_segments(program, diag));

  etr_fb_table_t constant_segment;
  ETR_TRY(etr_fb_table_field(root, ETR_PROGRAM_CONSTANT_SEGMENT,
                             &constant_segment, &present, diag));
  if (present) {
    ETR_TRY(parse_subsegment(program, &constant_segment, "constant_segment",
                             &program->constant_offsets,
                             &program->constant_segment,
                             &program->constant_segment_size, diag));
    program->uses_constant_segment = program->constant_offsets.length > 1;
  }
  ETR_CHECK(diag,
            !program->uses_constant_segment ||
                program->constant_buffers.length == 0,
            ETR_ERR_INVALID_PROGRAM,
            "program stores constants both inline (%u constant_buffer "
            "entries) and in a constant segment (%u offsets); only one may be "
            "used",
            program->constant_buffers.length,
            program->constant_offsets.length);

  etr_fb_vector_t mutable_segments;
  ETR_TRY(etr_fb_vector_field(root, ETR_PROGRAM_MUTABLE_DATA_SEGMENTS, 4,
                              &mutable_segments, &present, diag));
  if (mutable_segments.length > 0) {
    etr_fb_table_t first;
    ETR_TRY(etr_fb_vector_table(&mutable_segments, 0, &first, diag));
    ETR_TRY(parse_subsegment(program, &first, "mutable_data_segments[0]",
                             &program->mutable_offsets,
                             &program->mutable_segment,
                             &program->mutable_segment_size, diag));
    program->has_mutable_segment = program->mutable_offsets.length > 1;
  }
  return ETR_OK;
}

etr_error_t etr_program_load(const void *data, size_t size,
                             etr_program_t *program, etr_diag_t *diag) {
  memset(program, 0, sizeof(*program));
  ETR_CHECK(diag, data != NULL, ETR_ERR_INVALID_ARGUMENT,
            "program buffer is NULL");
  ETR_CHECK(diag, ((uintptr_t)data & 15u) == 0, ETR_ERR_INVALID_ARGUMENT,
            "program buffer at %p is not 16-byte aligned", data);
  program->data = (const uint8_t *)data;
  program->size = size;
  ETR_TRY(check_identifier(program->data, size, diag));
  ETR_TRY(parse_extended_header(program, diag));
  etr_error_t status = etr_fb_root(program->data,
                                   (size_t)program->program_size,
                                   &program->root, diag);
  if (status == ETR_OK) {
    status = parse_root(program, diag);
  }
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "program");
  }
  return status;
}

etr_error_t etr_program_load_file(const char *path, size_t max_bytes,
                                  etr_program_t *program, etr_diag_t *diag) {
  memset(program, 0, sizeof(*program));
  void *buffer = NULL;
  size_t size = 0;
  ETR_TRY(etr_read_file(path, max_bytes, &buffer, &size, diag));
  etr_error_t status = etr_program_load(buffer, size, program, diag);
  program->owned_data = buffer;  // released even when loading failed
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", path);
    etr_program_release(program);
  }
  return status;
}

void etr_program_release(etr_program_t *program) {
  if (program == NULL) {
    return;
  }
  free(program->owned_data);
  memset(program, 0, sizeof(*program));
}

uint32_t etr_program_method_count(const etr_program_t *program) {
  return program->execution_plans.length;
}

etr_error_t etr_program_method_name(const etr_program_t *program,
                                    uint32_t index, etr_fb_string_t *name,
                                    etr_diag_t *diag) {
  etr_fb_table_t plan;
  ETR_TRY(etr_fb_vector_table(&program->execution_plans, index, &plan, diag));
  bool present = false;
  ETR_TRY(etr_fb_string_field(&plan, ETR_PLAN_NAME, name, &present, diag));
  return ETR_OK;
}

etr_error_t etr_program_find_method(const etr_program_t *program,
                                    const char *name, etr_fb_table_t *plan,
                                    etr_diag_t *diag) {
  char available[256] = "";
  size_t used = 0;
  for (uint32_t i = 0; i < program->execution_plans.length; ++i) {
    etr_fb_string_t plan_name;
    ETR_TRY(etr_program_method_name(program, i, &plan_name, diag));
    if (strcmp(plan_name.chars, name) == 0) {
      return etr_fb_vector_table(&program->execution_plans, i, plan, diag);
    }
    if (used < sizeof(available)) {
      int written = snprintf(available + used, sizeof(available) - used,
                             "%s'%.64s'", i ? ", " : "", plan_name.chars);
      used += written > 0 ? (size_t)written : 0;
    }
  }
  return ETR_FAIL(diag, ETR_ERR_NOT_FOUND,
                  "program has no method '%s' (methods: %s)", name,
                  program->execution_plans.length ? available : "none");
}

etr_error_t etr_program_segment(const etr_program_t *program, uint32_t index,
                                const uint8_t **data_out, size_t *size_out,
                                etr_diag_t *diag) {
  ETR_CHECK(diag, index < program->segments.length, ETR_ERR_INVALID_PROGRAM,
            "segment index %u is out of range (program has %u segments)",
            index, program->segments.length);
  etr_fb_table_t segment;
  ETR_TRY(etr_fb_vector_table(&program->segments, index, &segment, diag));
  uint64_t offset = 0;
  uint64_t size = 0;
  ETR_TRY(etr_fb_u64(&segment, SEGMENT_OFFSET, 0, &offset, diag));
  ETR_TRY(etr_fb_u64(&segment, SEGMENT_SIZE, 0, &size, diag));
  if (size == 0) {
    *data_out = program->data;  // any valid pointer; nothing may be read
    *size_out = 0;
    return ETR_OK;
  }
  // check_segments proved base + offset + size <= the file size at load.
  *data_out = program->data + program->segment_base_offset + offset;
  *size_out = (size_t)size;
  return ETR_OK;
}

etr_error_t etr_program_constant_data(const etr_program_t *program,
                                      uint32_t buffer_index, size_t nbytes,
                                      const uint8_t **data_out,
                                      etr_diag_t *diag) {
  if (program->uses_constant_segment) {
    ETR_CHECK(diag, buffer_index < program->constant_offsets.length,
              ETR_ERR_INVALID_PROGRAM,
              "constant buffer index %u is out of range (constant segment "
              "has %u entries)",
              buffer_index, program->constant_offsets.length);
    uint64_t offset =
        etr_fb_vector_u64(&program->constant_offsets, buffer_index);
    ETR_CHECK(diag,
              offset <= program->constant_segment_size &&
                  nbytes <= program->constant_segment_size - offset,
              ETR_ERR_INVALID_PROGRAM,
              "constant %u (offset %llu, %zu bytes) lies outside the "
              "%zu-byte constant segment",
              buffer_index, (unsigned long long)offset, nbytes,
              program->constant_segment_size);
    *data_out = program->constant_segment + offset;
    return ETR_OK;
  }
  ETR_CHECK(diag, buffer_index < program->constant_buffers.length,
            ETR_ERR_INVALID_PROGRAM,
            "constant buffer index %u is out of range (program has %u "
            "inline constant buffers)",
            buffer_index, program->constant_buffers.length);
  etr_fb_table_t buffer;
  ETR_TRY(etr_fb_vector_table(&program->constant_buffers, buffer_index,
                              &buffer, diag));
  etr_fb_vector_t storage;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(&buffer, BUFFER_STORAGE, 1, &storage, &present,
                              diag));
  ETR_CHECK(diag, nbytes <= storage.length, ETR_ERR_INVALID_PROGRAM,
            "constant buffer %u holds %u bytes but the tensor needs %zu",
            buffer_index, storage.length, nbytes);
  *data_out = present ? etr_fb_vector_bytes(&storage) : program->data;
  return ETR_OK;
}

etr_error_t etr_program_mutable_data(const etr_program_t *program,
                                     uint32_t buffer_index, size_t nbytes,
                                     const uint8_t **data_out,
                                     etr_diag_t *diag) {
  ETR_CHECK(diag, program->has_mutable_segment, ETR_ERR_INVALID_PROGRAM,
            "tensor asks for initial data %u from a mutable data segment "
            "the program does not have",
            buffer_index);
  ETR_CHECK(diag, buffer_index < program->mutable_offsets.length,
            ETR_ERR_INVALID_PROGRAM,
            "mutable data index %u is out of range (segment has %u entries)",
            buffer_index, program->mutable_offsets.length);
  uint64_t offset = etr_fb_vector_u64(&program->mutable_offsets, buffer_index);
  ETR_CHECK(diag,
            offset <= program->mutable_segment_size &&
                nbytes <= program->mutable_segment_size - offset,
            ETR_ERR_INVALID_PROGRAM,
            "mutable data %u (offset %llu, %zu bytes) lies outside the "
            "%zu-byte mutable segment",
            buffer_index, (unsigned long long)offset, nbytes,
            program->mutable_segment_size);
  *data_out = program->mutable_segment + offset;
  return ETR_OK;
}

etr_error_t etr_program_delegate_data(const etr_program_t *program,
                                      uint8_t location, uint32_t index,
                                      const uint8_t **data_out,
                                      size_t *size_out, etr_diag_t *diag) {
  if (location == 1) {  // DataLocation.SEGMENT
    return etr_program_segment(program, index, data_out, size_out, diag);
  }
  ETR_CHECK(diag, location == 0, ETR_ERR_INVALID_PROGRAM,
            "delegate data location %u is neither INLINE (0) nor SEGMENT (1)",
            (unsigned)location);
  ETR_CHECK(diag, index < program->delegate_data.length,
            ETR_ERR_INVALID_PROGRAM,
            "inline delegate data index %u is out of range (program has %u)",
            index, program->delegate_data.length);
  etr_fb_table_t inline_data;
  ETR_TRY(etr_fb_vector_table(&program->delegate_data, index, &inline_data,
                              diag));
  etr_fb_vector_t bytes;
  bool present = false;
  ETR_TRY(etr_fb_vector_field(&inline_data, INLINE_DATA_DATA, 1, &bytes,
                              &present, diag));
  *data_out = present ? etr_fb_vector_bytes(&bytes) : program->data;
  *size_out = bytes.length;
  return ETR_OK;
}

etr_error_t etr_program_named_data(const etr_program_t *program,
                                   const char *key, const uint8_t **data_out,
                                   size_t *size_out, etr_diag_t *diag) {
  for (uint32_t i = 0; i < program->named_data.length; ++i) {
    etr_fb_table_t entry;
    ETR_TRY(etr_fb_vector_table(&program->named_data, i, &entry, diag));
    etr_fb_string_t entry_key;
    bool present = false;
    ETR_TRY(etr_fb_string_field(&entry, NAMED_DATA_KEY, &entry_key, &present,
                                diag));
    if (strcmp(entry_key.chars, key) != 0) {
      continue;
    }
    uint32_t segment_index = 0;
    ETR_TRY(etr_fb_u32(&entry, NAMED_DATA_SEGMENT_INDEX, 0, &segment_index,
                       diag));
    return etr_program_segment(program, segment_index, data_out, size_out,
                               diag);
  }
  return ETR_FAIL(diag, ETR_ERR_NOT_FOUND, "program has no named data '%s'",
                  key);
}
