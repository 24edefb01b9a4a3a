// SPDX-License-Identifier: Apache-2.0
//
// .npy reader and writer (see npy.h).
#include "core/npy.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/file.h"
#include "core/flatbuffer.h"

static const char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

// A cursor over the header dict.
typedef struct {
  const char *text;
  size_t length;
  size_t position;
} scanner_t;

static void skip_spaces(scanner_t *s) {
  while (s->position < s->length &&
         (s->text[s->position] == ' ' || s->text[s->position] == '\t' ||
          s->text[s->position] == '\n')) {
    ++s->position;
  }
}

static bool accept(scanner_t *s, char c) {
  skip_spaces(s);
  if (s->position < s->length && s->text[s->position] == c) {
    ++s->position;
    return true;
  }
  return false;
}

static bool accept_word(scanner_t *s, const char *word) {
  skip_spaces(s);
  size_t n = strlen(word);
  if (s->length - s->position >= n &&
      memcmp(s->text + s->position, word, n) == 0) {
    s->position += n;
    return true;
  }
  return false;
}

// A quoted string ('...' or "..."), no escapes; copied into out.
static bool read_string(scanner_t *s, char *out, size_t capacity) {
  skip_spaces(s);
  if (s->position >= s->length) {
    return false;
  }
  char quote = s->text[s->position];
  if (quote != '\'' && quote != '"') {
    return false;
  }
  size_t start = ++s->position;
  while (s->position < s->length && s->text[s->position] != quote) {
    ++s->position;
  }
  size_t n = s->position - start;
  if (s->position >= s->length || n + 1 > capacity) {
    return false;
  }
  memcpy(out, s->text + start, n);
  out[n] = '\0';
  ++s->position;
  return true;
}

static bool read_dimension(scanner_t *s, int64_t *out) {
  skip_spaces(s);
  int64_t value = 0;
  size_t digits = 0;
  while (s->position < s->length && s->text[s->position] >= '0' &&
         s->text[s->position] <= '9') {
    int digit = s->text[s->position] - '0';
    if (__builtin_mul_overflow(value, 10, &value) ||
        __builtin_add_overflow(value, digit, &value)) {
      return false;
    }
    ++s->position;
    ++digits;
  }
  if (s->position < s->length &&
      (s->text[s->position] == 'L' || s->text[s->position] == 'l')) {
    ++s->position;  // Python 2 long suffix, still written by some tools
  }
  *out = value;
  return digits > 0;
}

typedef struct {
  const char *descr;
  etr_scalar_type_t type;
} descr_map_t;

static const descr_map_t kDescrs[] = {
    {"<f4", ETR_FLOAT},   {"<f8", ETR_DOUBLE},  {"<f2", ETR_HALF},
    {"|b1", ETR_BOOL},    {"|u1", ETR_BYTE},    {"|i1", ETR_CHAR},
    {"<i2", ETR_SHORT},   {"<i4", ETR_INT},     {"<i8", ETR_LONG},
    {"<u2", ETR_UINT16},  {"<u4", ETR_UINT32},  {"<u8", ETR_UINT64},
    {"<c8", ETR_COMPLEX_FLOAT}, {"<c16", ETR_COMPLEX_DOUBLE},
};

static bool lookup_descr(const char *descr, etr_scalar_type_t *out) {
  char normalized[8];
  size_t n = strlen(descr);
  if (n == 0 || n >= sizeof(normalized)) {
    return false;
  }
  memcpy(normalized, descr, n + 1);
  // '=' is native order (little-endian on every machine etref runs on);
  // single-byte types may be written with any order character.
  if (normalized[0] == '=') {
    normalized[0] = '<';
  }
  if ((normalized[0] == '<' || normalized[0] == '>') && n == 3 &&
      normalized[2] == '1') {
    normalized[0] = '|';
  }
  for (size_t i = 0; i < sizeof(kDescrs) / sizeof(kDescrs[0]); ++i) {
    if (strcmp(normalized, kDescrs[i].descr) == 0) {
      *out = kDescrs[i].type;
      return true;
    }
  }
  return false;
}

static etr_error_t parse_header(const char *text, size_t length,
                                etr_scalar_type_t *type, bool *fortran,
                                int32_t *dim, int64_t *sizes,
                                etr_diag_t *diag) {
  scanner_t s = {text, length, 0};
  bool have_descr = false;
  bool have_order = false;
  bool have_shape = false;
  ETR_CHECK(diag, accept(&s, '{'), ETR_ERR_INVALID_ARGUMENT,
            ".npy header is not a dict");
  while (!accept(&s, '}')) {
    char key[32];
    ETR_CHECK(diag, read_string(&s, key, sizeof(key)) && accept(&s, ':'),
              ETR_ERR_INVALID_ARGUMENT, ".npy header has a malformed key");
    if (strcmp(key, "descr") == 0 && !have_descr) {
      char descr[16];
      ETR_CHECK(diag, read_string(&s, descr, sizeof(descr)),
                ETR_ERR_INVALID_ARGUMENT, ".npy 'descr' is not a string");
      ETR_CHECK(diag, lookup_descr(descr, type), ETR_ERR_INVALID_ARGUMENT,
                ".npy dtype '%s' is not supported (little-endian numeric "
                "and bool types only)",
                descr);
      have_descr = true;
    } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
      if (accept_word(&s, "True")) {
        *fortran = true;
      } else {
        ETR_CHECK(diag, accept_word(&s, "False"), ETR_ERR_INVALID_ARGUMENT,
                  ".npy 'fortran_order' is not True or False");
        *fortran = false;
      }
      have_order = true;
    } else if (strcmp(key, "shape") == 0 && !have_shape) {
      ETR_CHECK(diag, accept(&s, '('), ETR_ERR_INVALID_ARGUMENT,
                ".npy 'shape' is not a tuple");
      *dim = 0;
      while (!accept(&s, ')')) {
        ETR_CHECK(diag, *dim < ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
                  ".npy array has more than %d dimensions", ETR_MAX_DIMS);
        ETR_CHECK(diag, read_dimension(&s, &sizes[*dim]),
                  ETR_ERR_INVALID_ARGUMENT,
                  ".npy 'shape' entry %d is not a non-negative integer",
                  (int)*dim);
        ++*dim;
        if (!accept(&s, ',')) {
          ETR_CHECK(diag, accept(&s, ')'), ETR_ERR_INVALID_ARGUMENT,
                    ".npy 'shape' tuple is malformed");
          break;
        }
      }
      have_shape = true;
    } else {
      return ETR_FAIL(diag, ETR_ERR_INVALID_ARGUMENT,
                      ".npy header has an unexpected or repeated key '%s'",
                      key);
    }
    if (!accept(&s, ',')) {
      ETR_CHECK(diag, accept(&s, '}'), ETR_ERR_INVALID_ARGUMENT,
                ".npy header dict is malformed");
      break;
    }
  }
  ETR_CHECK(diag, have_descr && have_order && have_shape,
            ETR_ERR_INVALID_ARGUMENT,
            ".npy header lacks one of 'descr', 'fortran_order', 'shape'");
  return ETR_OK;
}

etr_error_t etr_npy_parse(const uint8_t *data, size_t size,
                          etr_tensor_t *tensor, etr_diag_t *diag) {
  ETR_CHECK(diag, data != NULL && size >= 10 &&
                      memcmp(data, kMagic, sizeof(kMagic)) == 0,
            ETR_ERR_INVALID_ARGUMENT, "not a .npy file (no \\x93NUMPY magic)");
  uint8_t major = data[6];
  size_t header_length = 0;
  size_t prefix = 0;
  if (major == 1) {
    header_length = etr_load_u16(data + 8);
    prefix = 10;
  } else {
    ETR_CHECK(diag, major == 2 || major == 3, ETR_ERR_INVALID_ARGUMENT,
              ".npy format version %u.%u is not supported", (unsigned)major,
              (unsigned)data[7]);
    ETR_CHECK(diag, size >= 12, ETR_ERR_INVALID_ARGUMENT,
              ".npy file is truncated in its preamble");
    header_length = etr_load_u32(data + 8);
    prefix = 12;
  }
  ETR_CHECK(diag, header_length <= size - prefix, ETR_ERR_INVALID_ARGUMENT,
            ".npy header of %zu bytes runs past the end of the %zu-byte file",
            header_length, size);
  etr_scalar_type_t type = ETR_FLOAT;
  bool fortran = false;
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS] = {0};
  ETR_TRY(parse_header((const char *)data + prefix, header_length, &type,
                       &fortran, &dim, sizes, diag));
  size_t nbytes = 0;
  if (etr_checked_nbytes(type, sizes, dim, &nbytes, diag) != ETR_OK) {
    return ETR_ERR_INVALID_ARGUMENT;
  }
  size_t offset = prefix + header_length;
  ETR_CHECK(diag, size - offset == nbytes, ETR_ERR_INVALID_ARGUMENT,
            ".npy data is %zu bytes but shape and dtype need %zu",
            size - offset, nbytes);
  uint8_t dim_order[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    dim_order[i] = (uint8_t)(fortran ? dim - 1 - i : i);
  }
  return etr_tensor_init_with_dim_order(tensor, type, dim, sizes, dim_order,
                                        (void *)(data + offset), nbytes,
                                        diag);
}

etr_error_t etr_npy_load_file(const char *path, size_t max_bytes,
                              etr_npy_array_t *array, etr_diag_t *diag) {
  memset(array, 0, sizeof(*array));
  void *buffer = NULL;
  size_t size = 0;
  ETR_TRY(etr_read_file(path, max_bytes, &buffer, &size, diag));
  etr_error_t status =
      etr_npy_parse((const uint8_t *)buffer, size, &array->tensor, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "%s", path);
    free(buffer);
    return status;
  }
  size_t element_size = etr_scalar_type_size(array->tensor.dtype);
  size_t offset = (size_t)((uint8_t *)array->tensor.data - (uint8_t *)buffer);
  if (offset % element_size != 0 || offset % 16 != 0) {
    // Move the data to the (64-byte aligned) start of the buffer.
    memmove(buffer, array->tensor.data, array->tensor.capacity_bytes);
    array->tensor.data = buffer;
  }
  array->owned = buffer;
  return ETR_OK;
}

void etr_npy_array_release(etr_npy_array_t *array) {
  if (array != NULL) {
    free(array->owned);
    memset(array, 0, sizeof(*array));
  }
}

etr_error_t etr_npy_write_file(const char *path, const etr_tensor_t *tensor,
                               etr_diag_t *diag) {
  bool widen_bfloat16 = tensor->dtype == ETR_BFLOAT16;
  const char *descr = widen_bfloat16
                          ? "<f4"
                          : etr_scalar_type_numpy_descr(tensor->dtype);
  ETR_CHECK(diag, descr != NULL, ETR_ERR_NOT_SUPPORTED,
            "%s tensors have no .npy representation",
            etr_scalar_type_name(tensor->dtype));
  char header[512];
  int used = snprintf(header, sizeof(header),
                      "{'descr': '%s', 'fortran_order': False, 'shape': (",
                      descr);
  for (int32_t i = 0; i < tensor->dim && used > 0; ++i) {
    used += snprintf(header + used, sizeof(header) - (size_t)used,
                     tensor->dim == 1 ? "%lld," : (i ? ", %lld" : "%lld"),
                     (long long)tensor->sizes[i]);
  }
  used += snprintf(header + used, sizeof(header) - (size_t)used, "), }");
  // Pad with spaces so the data starts at a multiple of 64, then '\n'.
  size_t total = 10 + (size_t)used + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t header_length = padded - 10;
  memset(header + used, ' ', header_length - (size_t)used - 1);
  header[header_length - 1] = '\n';

  FILE *file = fopen(path, "wb");
  ETR_CHECK(diag, file != NULL, ETR_ERR_ACCESS_FAILED,
            "cannot write '%s': %s", path, strerror(errno));
  uint8_t preamble[10];
  memcpy(preamble, kMagic, sizeof(kMagic));
  preamble[6] = 1;
  preamble[7] = 0;
  preamble[8] = (uint8_t)(header_length & 0xff);
  preamble[9] = (uint8_t)(header_length >> 8);
  bool ok = fwrite(preamble, 1, sizeof(preamble), file) == sizeof(preamble) &&
            fwrite(header, 1, header_length, file) == header_length;
  size_t element_size = etr_scalar_type_size(tensor->dtype);
  if (ok && etr_tensor_numel(tensor) > 0) {
    int64_t index[ETR_MAX_DIMS] = {0};
    do {
      const uint8_t *element = (const uint8_t *)tensor->data +
                               etr_tensor_offset(tensor, index) *
                                   (int64_t)element_size;
      if (widen_bfloat16) {
        etr_bfloat16_t bits;
        memcpy(&bits, element, sizeof(bits));
        float value = etr_bfloat16_to_float(bits);
        ok = fwrite(&value, sizeof(value), 1, file) == 1;
      } else {
        ok = fwrite(element, element_size, 1, file) == 1;
      }
    } while (ok && etr_index_next(index, tensor->sizes, tensor->dim));
  }
  ok = (fclose(file) == 0) && ok;
  ETR_CHECK(diag, ok, ETR_ERR_ACCESS_FAILED, "error writing '%s'", path);
  return ETR_OK;
}
