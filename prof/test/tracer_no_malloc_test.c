// SPDX-License-Identifier: Apache-2.0
//
// "The tracer does not allocate while the method runs": every allocation
// function is wrapped at link time (-Wl,--wrap=...) and counted while
// etr_method_execute runs with the full tracer attached (counters, if the
// machine has them, and capture on), over the dataset models with both
// kernel libraries, including runs past the recorded ones and full buffers.
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>

#include "prof/test/fixture.h"
#include "prof/tracer.h"

static bool g_counting = false;
static size_t g_allocations = 0;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *pointer, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
int __real_posix_memalign(void **out, size_t alignment, size_t size);

void *__wrap_malloc(size_t size) {
  g_allocations += g_counting;
  return __real_malloc(size);
}
void *__wrap_calloc(size_t count, size_t size) {
  g_allocations += g_counting;
  return __real_calloc(count, size);
}
void *__wrap_realloc(void *pointer, size_t size) {
  g_allocations += g_counting;
  return __real_realloc(pointer, size);
}
void *__wrap_aligned_alloc(size_t alignment, size_t size) {
  g_allocations += g_counting;
  return __real_aligned_alloc(alignment, size);
}
int __wrap_posix_memalign(void **out, size_t alignment, size_t size) {
  g_allocations += g_counting;
  return __real_posix_memalign(out, alignment, size);
}

Test(tracer_no_malloc, the_tracer_never_allocates_while_executing) {
  for (size_t m = 0; m < fixture_model_count; ++m) {
    for (int variant = 0; variant < ETR_NUM_KERNEL_VARIANTS; ++variant) {
      const fixture_model_t *model = &fixture_models[m];
      etr_prof_config_t config;
      etr_prof_config_init(&config);
      config.max_runs = 2;
      config.counters = ETR_COUNTERS_AUTO;
      config.capture_bytes = 64 * 1024;  // fills up on the larger models
      static etr_prof_t prof;
      etr_prof_init(&prof, &config);
      fixture_t traced;
      fixture_open(&traced, model->model, model->prefix, model->data,
                   (etr_kernel_variant_t)variant, &prof.tracer);
      etr_diag_t diag;
      cr_assert_eq(etr_prof_bind(&prof, &traced.method, &diag), ETR_OK);
      // Three runs: the third is past max_runs (counted, not recorded).
      for (int run = 0; run < 3; ++run) {
        fixture_set_inputs(&traced);
        g_allocations = 0;
        g_counting = true;
        etr_error_t status = etr_method_execute(&traced.method, &diag);
        g_counting = false;
        cr_assert_eq(status, ETR_OK, "%s: %s", model->model, diag.message);
        cr_assert_eq(g_allocations, 0,
                     "%s%s (%s kernels) run %d: %zu allocations while "
                     "executing with the tracer",
                     model->prefix, model->model,
                     etr_kernel_variant_name((etr_kernel_variant_t)variant),
                     run, g_allocations);
      }
      cr_assert_eq(prof.num_runs, 2);
      cr_assert_eq(prof.unrecorded_runs, 1);
      fixture_close(&traced);
      etr_prof_release(&prof);
    }
  }
}
