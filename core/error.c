// SPDX-License-Identifier: Apache-2.0
//
// Names for etr_error_t and the diagnostic record (see error.h).
#include "core/error.h"

#include <stdio.h>
#include <string.h>

typedef struct {
  etr_error_t code;
  const char *name;
} error_name_t;

static const error_name_t kErrorNames[] = {
    {ETR_OK, "Ok"},
    {ETR_ERR_INTERNAL, "Internal"},
    {ETR_ERR_INVALID_STATE, "InvalidState"},
    {ETR_ERR_END_OF_METHOD, "EndOfMethod"},
    {ETR_ERR_ALREADY_LOADED, "AlreadyLoaded"},
    {ETR_ERR_NOT_SUPPORTED, "NotSupported"},
    {ETR_ERR_NOT_IMPLEMENTED, "NotImplemented"},
    {ETR_ERR_INVALID_ARGUMENT, "InvalidArgument"},
    {ETR_ERR_INVALID_TYPE, "InvalidType"},
    {ETR_ERR_OPERATOR_MISSING, "OperatorMissing"},
    {ETR_ERR_REGISTRATION_EXCEEDING_MAX_KERNELS,
     "RegistrationExceedingMaxKernels"},
    {ETR_ERR_REGISTRATION_ALREADY_REGISTERED, "RegistrationAlreadyRegistered"},
    {ETR_ERR_NOT_FOUND, "NotFound"},
    {ETR_ERR_MEMORY_ALLOCATION_FAILED, "MemoryAllocationFailed"},
    {ETR_ERR_ACCESS_FAILED, "AccessFailed"},
    {ETR_ERR_INVALID_PROGRAM, "InvalidProgram"},
    {ETR_ERR_INVALID_EXTERNAL_DATA, "InvalidExternalData"},
    {ETR_ERR_OUT_OF_RESOURCES, "OutOfResources"},
    {ETR_ERR_DELEGATE_INVALID_COMPATIBILITY, "DelegateInvalidCompatibility"},
    {ETR_ERR_DELEGATE_MEMORY_ALLOCATION_FAILED,
     "DelegateMemoryAllocationFailed"},
    {ETR_ERR_DELEGATE_INVALID_HANDLE, "DelegateInvalidHandle"},
};

// ExecuTorch defines 21 codes; a new one must get a name here.
_Static_assert(sizeof(kErrorNames) / sizeof(kErrorNames[0]) == 21,
               "every etr_error_t needs a name");

const char *etr_error_name(etr_error_t code) {
  for (size_t i = 0; i < sizeof(kErrorNames) / sizeof(kErrorNames[0]); ++i) {
    if (kErrorNames[i].code == code) {
      return kErrorNames[i].name;
    }
  }
  return "Unknown";
}

int etr_error_is_known(int code) {
  for (size_t i = 0; i < sizeof(kErrorNames) / sizeof(kErrorNames[0]); ++i) {
    if ((int)kErrorNames[i].code == code) {
      return 1;
    }
  }
  return 0;
}

void etr_diag_reset(etr_diag_t *diag) {
  if (diag != NULL) {
    memset(diag, 0, sizeof(*diag));
  }
}

etr_error_t etr_diag_vset(etr_diag_t *diag, etr_error_t code,
                          const char *file, int line, const char *format,
                          va_list args) {
  if (diag == NULL || diag->code != ETR_OK || code == ETR_OK) {
    return code;
  }
  diag->code = code;
  diag->file = file;
  diag->line = line;
  vsnprintf(diag->message, sizeof(diag->message), format, args);
  return code;
}

etr_error_t etr_diag_set(etr_diag_t *diag, etr_error_t code, const char *file,
                         int line, const char *format, ...) {
  va_list args;
  va_start(args, format);
  etr_diag_vset(diag, code, file, line, format, args);
  va_end(args);
  return code;
}

void etr_diag_prefix(etr_diag_t *diag, const char *format, ...) {
  if (diag == NULL || diag->code == ETR_OK) {
    return;
  }
  char prefix[ETR_DIAG_MESSAGE_CAPACITY];
  va_list args;
  va_start(args, format);
  int written = vsnprintf(prefix, sizeof(prefix), format, args);
  va_end(args);
  if (written < 0) {
    return;
  }
  // Room for both parts; the result is cut to the message capacity.
  char combined[2 * ETR_DIAG_MESSAGE_CAPACITY + 2];
  snprintf(combined, sizeof(combined), "%s: %s", prefix, diag->message);
  memcpy(diag->message, combined, sizeof(diag->message) - 1);
  diag->message[sizeof(diag->message) - 1] = '\0';
}
