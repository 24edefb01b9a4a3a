// SPDX-License-Identifier: Apache-2.0
//
// The shared-library entry of the example vendor delegate
// (libetref_example_vendor.so): the one symbol the library exports (see
// core/backend.h, "Shipping a backend as a shared library"). Load it with
// `etref run|profile|compare ... --delegate libetref_example_vendor.so`.
#include "core/backend.h"
#include "delegates/example_vendor/example_vendor.h"

const etr_backend_library_t *etref_backend_entry_v1(void);

const etr_backend_library_t *etref_backend_entry_v1(void) {
  static const etr_backend_t *backends[1];
  static etr_backend_library_t library = {
      ETR_BACKEND_LIBRARY_INIT,
      .name = "etref example vendor delegate (" ETR_EXAMPLE_VENDOR_ID ")",
      .backends = backends,
      .num_backends = 1,
  };
  backends[0] = etr_example_vendor_backend_from_environment();
  return &library;
}
