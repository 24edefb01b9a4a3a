// SPDX-License-Identifier: Apache-2.0
//
// Delegate libraries (core/backend.h's ABI, delegates/loader.h): the
// example vendor library loads and registers, replacing a built-in backend
// of the same id; every way a library can be wrong (missing file, not a
// shared object, no entry symbol, another ABI version, NULL callbacks, an
// entry returning NULL, other struct sizes, duplicate ids) is refused with
// its error code and a message naming the library, never a crash.
#include <criterion/criterion.h>
#include <string.h>

#include "core/backend.h"
#include "delegates/demo_backend.h"
#include "delegates/loader.h"

#define FIXTURES "delegates/test/"
#define VENDOR "delegates/example_vendor/libetref_example_vendor.so"

static void refused(const char *path, etr_error_t code, const char *needle) {
  etr_delegate_library_t library;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_delegate_library_open(path, &library, &diag), code,
               "%s: %s", path, diag.message);
  cr_assert(strstr(diag.message, needle) != NULL, "'%s' lacks '%s'",
            diag.message, needle);
  cr_assert_null(library.handle, "a refused library stays closed");
}

Test(loader, example_vendor_library) {
  etr_delegate_library_t library;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_delegate_library_open(VENDOR, &library, &diag), ETR_OK,
               "%s", diag.message);
  cr_assert_eq(library.descriptor->abi_version, ETR_BACKEND_ABI_VERSION);
  cr_assert_eq(library.descriptor->num_backends, 1);
  etr_backend_registry_t registry;
  etr_backend_registry_init(&registry);
  cr_assert_eq(etr_backend_registry_add(&registry, etr_demo_backend(), &diag),
               ETR_OK);
  etr_delegate_registration_t registration;
  cr_assert_eq(etr_delegate_library_register(&library, &registry,
                                             &registration, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(registration.count, 1);
  cr_assert_str_eq(registration.ids[0], "EtrefExampleVendor");
  cr_assert_not(registration.replaced[0]);
  cr_assert_eq(registry.count, 2);
  // Registering it again replaces the one now there, and says so.
  cr_assert_eq(etr_delegate_library_register(&library, &registry,
                                             &registration, &diag),
               ETR_OK);
  cr_assert(registration.replaced[0]);
  cr_assert_eq(registry.count, 2);
  cr_assert_not_null(etr_backend_registry_find(&registry,
                                               "EtrefExampleVendor"));
  etr_delegate_library_close(&library);
}

Test(loader, bad_libraries_are_refused) {
  refused(FIXTURES "missing.so", ETR_ERR_ACCESS_FAILED,
          "cannot read delegate library");
  refused(FIXTURES, ETR_ERR_ACCESS_FAILED, "not a regular file");
  refused(FIXTURES "not_a_library.txt",
          ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
          "cannot load delegate library");
  refused(FIXTURES "libno_entry.so", ETR_ERR_NOT_FOUND,
          "does not export etref_backend_entry_v1");
  refused(FIXTURES "libbad_version.so",
          ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
          "speaks etref delegate ABI version 99");
  refused(FIXTURES "libnull_execute.so", ETR_ERR_INVALID_ARGUMENT,
          "backend 'FixtureBackend' has no execute callback");
  refused(FIXTURES "libnull_entry.so", ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
          "returned NULL");
}

// ---- descriptor checks, without dlopen --------------------------------------

static etr_error_t fake_init(const etr_backend_t *self,
                             etr_backend_init_context_t *context,
                             const uint8_t *processed, size_t size,
                             const etr_compile_spec_t *specs, size_t count,
                             void **handle) {
  (void)self, (void)context, (void)processed, (void)size, (void)specs,
      (void)count;
  *handle = NULL;
  return ETR_OK;
}

static etr_error_t fake_execute(const etr_backend_t *self,
                                etr_backend_execute_context_t *context,
                                void *handle, etr_evalue_t **args,
                                size_t num_args) {
  (void)self, (void)context, (void)handle, (void)args, (void)num_args;
  return ETR_OK;
}

static const etr_backend_t kA = {.id = "A", .init = fake_init,
                                 .execute = fake_execute};
static const etr_backend_t kB = {.id = "B", .init = fake_init,
                                 .execute = fake_execute};
static const etr_backend_t kNoId = {.id = "", .init = fake_init,
                                    .execute = fake_execute};
static const etr_backend_t kNoInit = {.id = "C", .execute = fake_execute};

static void check(const etr_backend_library_t *library, etr_error_t code,
                  const char *needle) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_backend_library_check(library, "lib.so", &diag), code,
               "%s", diag.message);
  if (needle != NULL) {
    cr_assert(strstr(diag.message, needle) != NULL, "'%s' lacks '%s'",
              diag.message, needle);
    cr_assert(strstr(diag.message, "lib.so") != NULL);
  }
}

Test(loader, descriptor_checks) {
  const etr_backend_t *two[2] = {&kA, &kB};
  etr_backend_library_t good = {ETR_BACKEND_LIBRARY_INIT, .name = "good",
                                .backends = two, .num_backends = 2};
  check(&good, ETR_OK, NULL);
  etr_backend_library_t bad = good;
  bad.sizeof_tensor += 8;
  check(&bad, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY,
        "its etr_tensor_t is");
  bad = good;
  bad.sizeof_event_tracer = 8;
  check(&bad, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY, "etr_event_tracer_t");
  bad = good;
  bad.num_backends = 0;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "lists 0 backends");
  bad = good;
  bad.backends = NULL;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "lists 0 backends");
  bad = good;
  bad.num_backends = ETR_MAX_REGISTERED_BACKENDS + 1;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "backends (1 to 16 expected)");
  const etr_backend_t *dup[2] = {&kA, &kA};
  bad = good;
  bad.backends = dup;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "lists backend 'A' twice");
  const etr_backend_t *null_one[2] = {&kA, NULL};
  bad.backends = null_one;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "backend 1 is NULL");
  const etr_backend_t *no_id[1] = {&kNoId};
  bad.backends = no_id;
  bad.num_backends = 1;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "has no id");
  const etr_backend_t *no_init[1] = {&kNoInit};
  bad.backends = no_init;
  check(&bad, ETR_ERR_INVALID_ARGUMENT, "'C' has no init callback");
  check(NULL, ETR_ERR_DELEGATE_INVALID_COMPATIBILITY, "returned NULL");
}

Test(loader, registry_set_replaces_in_place) {
  etr_backend_registry_t registry;
  etr_backend_registry_init(&registry);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_backend_registry_add(&registry, &kA, &diag), ETR_OK);
  cr_assert_eq(etr_backend_registry_add(&registry, &kB, &diag), ETR_OK);
  etr_backend_t replacement = kA;
  const etr_backend_t *replaced = NULL;
  cr_assert_eq(etr_backend_registry_set(&registry, &replacement, &replaced,
                                        &diag),
               ETR_OK);
  cr_assert_eq(replaced, &kA);
  cr_assert_eq(registry.count, 2);
  cr_assert_eq(registry.backends[0], &replacement);
  cr_assert_eq(etr_backend_registry_set(&registry, &kNoInit, &replaced,
                                        &diag),
               ETR_ERR_INVALID_ARGUMENT);
}
