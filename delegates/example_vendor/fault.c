// SPDX-License-Identifier: Apache-2.0
//
// Fault strings of the example vendor delegate (see example_vendor.h).
#include <stdio.h>
#include <string.h>

#include "delegates/example_vendor/example_vendor.h"
#include "delegates/example_vendor/vendor_kernels.h"

static const struct {
  const char *name;
  etr_vendor_fault_mode_t mode;
  const char *default_op;
  int64_t default_occurrence;
} kModes[] = {
    {"none", ETR_VENDOR_FAULT_NONE, "", -1},
    {"off_by_one", ETR_VENDOR_FAULT_OFF_BY_ONE, "convolution", 1},
    {"fp16", ETR_VENDOR_FAULT_FP16, "addmm", 0},
    {"bf16", ETR_VENDOR_FAULT_BF16, "addmm", 0},
    {"requant_trunc", ETR_VENDOR_FAULT_REQUANT_TRUNC, "quantize_per_tensor",
     0},
    {"requant_half_away", ETR_VENDOR_FAULT_REQUANT_HALF_AWAY,
     "quantize_per_tensor", 0},
};

// A non-negative decimal number of at most 9 digits.
static bool parse_index(const char *text, size_t length, int64_t *out) {
  if (length == 0 || length > 9) {
    return false;
  }
  int64_t value = 0;
  for (size_t i = 0; i < length; ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return false;
    }
    value = value * 10 + (text[i] - '0');
  }
  *out = value;
  return true;
}

etr_error_t etr_vendor_fault_parse(const char *text, size_t length,
                                   etr_vendor_fault_t *fault,
                                   etr_diag_t *diag) {
  memset(fault, 0, sizeof(*fault));
  fault->occurrence = -1;
  fault->delegate = -1;
  size_t mode_end = 0;
  while (mode_end < length && text[mode_end] != ':') {
    ++mode_end;
  }
  size_t m = 0;
  size_t count = sizeof(kModes) / sizeof(kModes[0]);
  while (m < count && !(strlen(kModes[m].name) == mode_end &&
                        memcmp(kModes[m].name, text, mode_end) == 0)) {
    ++m;
  }
  ETR_CHECK(diag, m < count, ETR_ERR_INVALID_ARGUMENT,
            "fault '%.*s': unknown mode (none, off_by_one, fp16, bf16, "
            "requant_trunc, requant_half_away)",
            (int)(length < 64 ? length : 64), text);
  fault->mode = kModes[m].mode;
  snprintf(fault->op, sizeof(fault->op), "%s", kModes[m].default_op);
  fault->occurrence = kModes[m].default_occurrence;
  if (mode_end == length) {
    return ETR_OK;
  }
  ETR_CHECK(diag, fault->mode != ETR_VENDOR_FAULT_NONE,
            ETR_ERR_INVALID_ARGUMENT, "fault 'none' takes no operator");
  // OP[@N][#D]
  const char *rest = text + mode_end + 1;
  size_t rest_length = length - mode_end - 1;
  size_t op_end = 0;
  while (op_end < rest_length && rest[op_end] != '@' && rest[op_end] != '#') {
    ++op_end;
  }
  ETR_CHECK(diag, op_end > 0 && op_end < sizeof(fault->op),
            ETR_ERR_INVALID_ARGUMENT,
            "fault '%.*s': the operator name is empty or too long",
            (int)(length < 64 ? length : 64), text);
  for (size_t i = 0; i < op_end; ++i) {
    char c = rest[i];
    ETR_CHECK(diag, c > ' ' && c < 127, ETR_ERR_INVALID_ARGUMENT,
              "fault: the operator name has a character 0x%02x",
              (unsigned)(unsigned char)c);
  }
  memcpy(fault->op, rest, op_end);
  fault->op[op_end] = '\0';
  size_t position = op_end;
  if (position < rest_length && rest[position] == '@') {
    size_t start = ++position;
    while (position < rest_length && rest[position] != '#') {
      ++position;
    }
    if (position - start == 1 && rest[start] == '*') {
      fault->occurrence = -1;
    } else {
      ETR_CHECK(diag,
                parse_index(rest + start, position - start,
                            &fault->occurrence),
                ETR_ERR_INVALID_ARGUMENT,
                "fault '%.*s': @ needs a call index (0, 1, ...) or '*'",
                (int)(length < 64 ? length : 64), text);
    }
  }
  if (position < rest_length && rest[position] == '#') {
    size_t start = ++position;
    ETR_CHECK(diag,
              parse_index(rest + start, rest_length - start,
                          &fault->delegate),
              ETR_ERR_INVALID_ARGUMENT,
              "fault '%.*s': # needs a delegate index (0, 1, ...)",
              (int)(length < 64 ? length : 64), text);
    position = rest_length;
  }
  ETR_CHECK(diag, position == rest_length, ETR_ERR_INVALID_ARGUMENT,
            "fault '%.*s': unexpected text after the operator",
            (int)(length < 64 ? length : 64), text);
  return ETR_OK;
}

void etr_vendor_fault_describe(const etr_vendor_fault_t *fault, char *text,
                               size_t capacity) {
  const char *mode = "none";
  for (size_t m = 0; m < sizeof(kModes) / sizeof(kModes[0]); ++m) {
    if (kModes[m].mode == fault->mode) {
      mode = kModes[m].name;
    }
  }
  if (fault->mode == ETR_VENDOR_FAULT_NONE) {
    snprintf(text, capacity, "none");
    return;
  }
  char occurrence[24] = "*";
  if (fault->occurrence >= 0) {
    snprintf(occurrence, sizeof(occurrence), "%lld",
             (long long)fault->occurrence);
  }
  char delegate[24] = "";
  if (fault->delegate >= 0) {
    snprintf(delegate, sizeof(delegate), "#%lld", (long long)fault->delegate);
  }
  snprintf(text, capacity, "%s:%s@%s%s", mode, fault->op, occurrence,
           delegate);
}

bool etr_vendor_fault_matches(const etr_vendor_fault_t *fault,
                              const char *op_name) {
  if (fault->mode == ETR_VENDOR_FAULT_NONE || op_name == NULL) {
    return false;
  }
  if (strcmp(fault->op, op_name) == 0) {
    return true;
  }
  // The short name: between "::" and the overload's '.'.
  const char *separator = strstr(op_name, "::");
  const char *bare = separator != NULL ? separator + 2 : op_name;
  const char *dot = strchr(bare, '.');
  size_t length = dot != NULL ? (size_t)(dot - bare) : strlen(bare);
  return strlen(fault->op) == length && memcmp(fault->op, bare, length) == 0;
}

bool etr_vendor_fault_hits(const char *op_name,
                           etr_vendor_fault_mode_t mode) {
  etr_vendor_state_t *state = etr_vendor_current;
  if (state == NULL || !etr_vendor_fault_matches(&state->fault, op_name)) {
    return false;
  }
  int64_t call = state->target_calls++;
  bool hit = state->fault.mode == mode &&
             (state->fault.occurrence < 0 ||
              state->fault.occurrence == call) &&
             (state->fault.delegate < 0 ||
              state->fault.delegate == state->delegate_index);
  state->faults_applied += hit;
  return hit;
}
