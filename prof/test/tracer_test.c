// SPDX-License-Identifier: Apache-2.0
//
// The tracer: profiled runs give bitwise the outputs unprofiled runs give
// (every dataset model, both kernel libraries, with counters and capture
// on), events follow the instructions in order with consistent times,
// delegate events land inside their DelegateCall, what does not fit is
// counted, and the memory summary agrees with planner/.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/platform.h"
#include "planner/lifetime.h"
#include "planner/plan.h"
#include "prof/memory.h"
#include "prof/test/fixture.h"
#include "prof/tracer.h"

static void assert_same_value(const etr_evalue_t *a, const etr_evalue_t *b,
                              const char *what) {
  cr_assert_eq(a->tag, b->tag, "%s: tags differ", what);
  if (a->tag != ETR_TAG_TENSOR) {
    cr_assert_eq(memcmp(&a->u, &b->u, sizeof(a->u)), 0, "%s differs", what);
    return;
  }
  const etr_tensor_t *x = a->u.as_tensor;
  const etr_tensor_t *y = b->u.as_tensor;
  cr_assert_eq(x->dtype, y->dtype, "%s: dtypes differ", what);
  cr_assert_eq(x->dim, y->dim, "%s: ranks differ", what);
  cr_assert_eq(memcmp(x->sizes, y->sizes, sizeof(int64_t) * (size_t)x->dim),
               0, "%s: shapes differ", what);
  size_t nbytes = etr_tensor_nbytes(x);
  cr_assert_eq(nbytes, etr_tensor_nbytes(y));
  cr_assert(nbytes == 0 || memcmp(x->data, y->data, nbytes) == 0,
            "%s: bytes differ between the profiled and unprofiled run", what);
}

Test(tracer, profiled_outputs_are_bitwise_identical_to_unprofiled) {
  for (size_t m = 0; m < fixture_model_count; ++m) {
    for (int variant = 0; variant < ETR_NUM_KERNEL_VARIANTS; ++variant) {
      const fixture_model_t *model = &fixture_models[m];
      etr_prof_config_t config;
      etr_prof_config_init(&config);
      config.max_runs = 3;
      config.counters = ETR_COUNTERS_AUTO;
      config.capture_bytes = 1 << 20;
      static etr_prof_t prof;
      etr_prof_init(&prof, &config);
      fixture_t plain;
      fixture_t traced;
      fixture_open(&plain, model->model, model->prefix, model->data,
                   (etr_kernel_variant_t)variant, NULL);
      fixture_open(&traced, model->model, model->prefix, model->data,
                   (etr_kernel_variant_t)variant, &prof.tracer);
      etr_diag_t diag;
      cr_assert_eq(etr_prof_bind(&prof, &traced.method, &diag), ETR_OK);
      // Three executions each (mutable buffers carry state between them).
      for (int run = 0; run < 3; ++run) {
        fixture_execute(&plain);
        fixture_execute(&traced);
        for (uint32_t k = 0; k < plain.method.num_outputs; ++k) {
          char what[160];
          snprintf(what, sizeof(what), "%s%s (%s) run %d output %u",
                   model->prefix, model->model,
                   etr_kernel_variant_name((etr_kernel_variant_t)variant),
                   run, k);
          assert_same_value(etr_method_output(&plain.method, k),
                            etr_method_output(&traced.method, k), what);
        }
      }
      cr_assert_eq(prof.num_runs, 3, "%s", model->model);
      cr_assert_gt(prof.num_events, 0, "%s", model->model);
      fixture_close(&traced);
      fixture_close(&plain);
      etr_prof_release(&prof);
    }
  }
}

Test(tracer, events_follow_the_instructions_in_order) {
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.max_runs = 4;
  static etr_prof_t prof;
  etr_prof_init(&prof, &config);
  fixture_t cnn;
  fixture_open(&cnn, "cnn", "", NULL, ETR_KERNELS_REFERENCE, &prof.tracer);
  etr_diag_t diag;
  cr_assert_eq(etr_prof_bind(&prof, &cnn.method, &diag), ETR_OK);
  for (int run = 0; run < 4; ++run) {
    fixture_execute(&cnn);
  }
  uint32_t instructions = cnn.method.chains[0].num_instructions;
  cr_assert_eq(instructions, 10);
  cr_assert_eq(prof.num_runs, 4);
  cr_assert_eq(prof.num_events, 4 * instructions);
  for (uint32_t r = 0; r < prof.num_runs; ++r) {
    const etr_prof_run_t *run = &prof.runs[r];
    cr_assert_eq(run->status, ETR_OK);
    cr_assert_eq(run->num_events, instructions);
    uint64_t previous_end = run->start_ns;
    for (uint32_t i = 0; i < run->num_events; ++i) {
      const etr_prof_event_t *event = &prof.events[run->first_event + i];
      cr_assert_eq(event->run, r);
      cr_assert_eq(event->chain, 0);
      cr_assert_eq(event->instruction, i);
      cr_assert_eq(event->kind, ETR_INSTRUCTION_KERNEL_CALL);
      cr_assert_eq(event->status, ETR_OK);
      cr_assert_geq(event->start_ns, previous_end);
      cr_assert_geq(event->end_ns, event->start_ns);
      previous_end = event->end_ns;
    }
    cr_assert_leq(previous_end, run->end_ns);
  }
  cr_assert_str_eq(etr_prof_instruction_name(&cnn.method, 0, 0),
                   "aten::convolution.out");
  cr_assert_str_eq(etr_prof_instruction_name(&cnn.method, 0, 99), "?");
  // A fifth run does not fit: counted, not recorded.
  fixture_execute(&cnn);
  cr_assert_eq(prof.num_runs, 4);
  cr_assert_eq(prof.unrecorded_runs, 1);
  char drops[256];
  etr_prof_describe_drops(&prof, drops, sizeof(drops));
  cr_assert(strstr(drops, "1 runs past the 4 recorded") != NULL, "%s", drops);
  // Reset forgets the runs and the drops.
  etr_prof_reset(&prof);
  cr_assert_eq(prof.num_runs, 0);
  fixture_execute(&cnn);
  cr_assert_eq(prof.num_runs, 1);
  etr_prof_describe_drops(&prof, drops, sizeof(drops));
  cr_assert_str_eq(drops, "nothing dropped");
  // Detaching the tracer between executions stops recording.
  cnn.method.config.tracer = NULL;
  fixture_execute(&cnn);
  cr_assert_eq(prof.num_runs, 1);
  fixture_close(&cnn);
  etr_prof_release(&prof);
}

Test(tracer, delegate_events_land_inside_their_delegate_call) {
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.max_runs = 2;
  static etr_prof_t prof;
  etr_prof_init(&prof, &config);
  fixture_t demo;
  fixture_open(&demo, "delegate_demo_inline", "", NULL, ETR_KERNELS_REFERENCE,
               &prof.tracer);
  etr_diag_t diag;
  cr_assert_eq(etr_prof_bind(&prof, &demo.method, &diag), ETR_OK);
  fixture_execute(&demo);
  fixture_execute(&demo);
  cr_assert_gt(prof.num_delegate_events, 0);
  cr_assert_eq(prof.num_delegate_events % 2, 0);
  for (uint32_t d = 0; d < prof.num_delegate_events; ++d) {
    const etr_prof_delegate_event_t *sub = &prof.delegate_events[d];
    const etr_instruction_t *instruction =
        etr_prof_instruction(&demo.method, sub->chain, sub->instruction);
    cr_assert_not_null(instruction);
    cr_assert_eq(instruction->kind, ETR_INSTRUCTION_DELEGATE_CALL);
    cr_assert_neq(sub->name[0], '\0');
    cr_assert_geq(sub->debug_id, 0);
    // Find the DelegateCall event of the same run that encloses it.
    bool enclosed = false;
    for (uint32_t e = 0; e < prof.num_events; ++e) {
      const etr_prof_event_t *event = &prof.events[e];
      if (event->run == sub->run && event->instruction == sub->instruction &&
          event->start_ns <= sub->start_ns && sub->end_ns <= event->end_ns) {
        enclosed = true;
      }
    }
    cr_assert(enclosed, "delegate event %u outside its DelegateCall", d);
  }
  fixture_close(&demo);
  etr_prof_release(&prof);
}

Test(tracer, captures_what_executorch_logs) {
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.capture_bytes = 1 << 20;
  static etr_prof_t prof;
  etr_prof_init(&prof, &config);
  fixture_t cnn;
  fixture_open(&cnn, "cnn", "", NULL, ETR_KERNELS_REFERENCE, &prof.tracer);
  etr_diag_t diag;
  cr_assert_eq(etr_prof_bind(&prof, &cnn.method, &diag), ETR_OK);
  fixture_execute(&cnn);
  // One per tensor of each kernel's return slot (batch norm 3, max pool
  // with indices 2, the other 8 kernels 1) plus the program output: what
  // ExecuTorch 1.5.1 logs for this program.
  cr_assert_eq(prof.num_captures, 15 + 1);
  const etr_prof_capture_t *output = &prof.captures[prof.num_captures - 1];
  cr_assert(output->is_output);
  cr_assert(output->stored);
  cr_assert_eq(output->chain, UINT32_MAX);
  const etr_tensor_t *actual = etr_method_output(&cnn.method, 0)->u.as_tensor;
  cr_assert_eq(output->nbytes, etr_tensor_nbytes(actual));
  cr_assert_eq(memcmp(prof.capture_buffer + output->offset, actual->data,
                      output->nbytes),
               0);
  for (uint32_t c = 0; c < prof.num_captures; ++c) {
    cr_assert_eq(prof.captures[c].offset % 64, 0);
  }
  // A buffer too small keeps the records, counts the bytes not stored.
  etr_prof_release(&prof);
  config.capture_bytes = 1024;
  etr_prof_init(&prof, &config);
  cr_assert_eq(etr_prof_bind(&prof, &cnn.method, &diag), ETR_OK);
  cnn.method.config.tracer = &prof.tracer;
  fixture_execute(&cnn);
  cr_assert_eq(prof.num_captures, 16);
  cr_assert_gt(prof.unstored_capture_bytes, 0);
  fixture_close(&cnn);
  etr_prof_release(&prof);
}

Test(tracer, counters_are_read_or_explained) {
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.counters = ETR_COUNTERS_AUTO;
  static etr_prof_t prof;
  etr_prof_init(&prof, &config);
  if (prof.counters.source == ETR_COUNTERS_NONE) {
    // No counters here: the reason must say why, in words.
    cr_assert_gt(strlen(prof.counters.reason), 10, "%s",
                 prof.counters.reason);
    etr_prof_release(&prof);
    return;
  }
  fixture_t cnn;
  fixture_open(&cnn, "cnn", "", NULL, ETR_KERNELS_REFERENCE, &prof.tracer);
  etr_diag_t diag;
  cr_assert_eq(etr_prof_bind(&prof, &cnn.method, &diag), ETR_OK);
  fixture_execute(&cnn);
  uint64_t instructions = 0;
  uint32_t slot = UINT32_MAX;
  for (uint32_t c = 0; c < prof.counters.num_counters; ++c) {
    if (strcmp(prof.counters.names[c], "instructions") == 0) {
      slot = c;
    }
  }
  if (slot != UINT32_MAX) {
    // The first convolution executes far more than 1000 instructions.
    cr_assert(etr_prof_event_counter(&prof, 0, slot, &instructions));
    cr_assert_gt(instructions, 1000);
  }
  fixture_close(&cnn);
  etr_prof_release(&prof);
  // Asking for nothing says so.
  config.counters = ETR_COUNTERS_OFF;
  etr_prof_init(&prof, &config);
  cr_assert_eq(prof.counters.source, ETR_COUNTERS_NONE);
  cr_assert_str_eq(prof.counters.reason, "hardware counters not requested");
  etr_prof_release(&prof);
}

Test(tracer, memory_summary_agrees_with_the_planner) {
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  static etr_prof_t prof;
  etr_prof_init(&prof, &config);
  fixture_t cnn;
  fixture_open(&cnn, "cnn", "", NULL, ETR_KERNELS_REFERENCE, &prof.tracer);
  etr_diag_t diag;
  cr_assert_eq(etr_prof_bind(&prof, &cnn.method, &diag), ETR_OK);
  fixture_execute(&cnn);
  etr_prof_memory_t memory;
  cr_assert_eq(etr_prof_memory_compute(&prof, &cnn.method, &memory, &diag),
               ETR_OK);
  cr_assert_str_eq(memory.note, "");
  cr_assert_eq(memory.num_pools, 1);
  // reports/planner/README.md: ExecuTorch's plan 147456, bound 131072.
  cr_assert_eq(memory.pools[0].size, 147456);
  cr_assert_eq(memory.planned_total, 147456);
  cr_assert_eq(memory.lower_bound_total, 131072);
  cr_assert_eq(memory.pools[0].peak_live_bytes, 131072);
  cr_assert_eq(memory.best_fit_total, 131072);
  cr_assert_geq(memory.tensor_total, memory.lower_bound_total);
  cr_assert(memory.used_observed);
  // Static shapes: every tensor used its planned bytes.
  cr_assert_eq(memory.used_total, memory.tensor_total);
  cr_assert_gt(memory.method_arena_bytes, 0);
  etr_prof_memory_release(&memory);
  fixture_close(&cnn);
  etr_prof_release(&prof);

  // A dynamic shape below its bound uses less than it plans.
  etr_prof_init(&prof, &config);
  fixture_t dynamic;
  fixture_open(&dynamic, "dynamic_shape", "case2_", NULL,
               ETR_KERNELS_REFERENCE, &prof.tracer);
  cr_assert_eq(etr_prof_bind(&prof, &dynamic.method, &diag), ETR_OK);
  fixture_execute(&dynamic);
  cr_assert_eq(etr_prof_memory_compute(&prof, &dynamic.method, &memory,
                                       &diag),
               ETR_OK);
  cr_assert_lt(memory.used_total, memory.tensor_total);
  etr_prof_memory_release(&memory);
  fixture_close(&dynamic);
  etr_prof_release(&prof);
}

Test(tracer, times_agree_with_the_platform_clock_on_either_time_source) {
  for (int platform = 0; platform < 2; ++platform) {
    etr_prof_config_t config;
    etr_prof_config_init(&config);
    config.max_runs = 5;
    config.platform_clock = platform == 1;
    static etr_prof_t prof;
    etr_prof_init(&prof, &config);
    fixture_t cnn;
    fixture_open(&cnn, "cnn", "", NULL, ETR_KERNELS_OPTIMIZED, &prof.tracer);
    etr_diag_t diag;
    cr_assert_eq(etr_prof_bind(&prof, &cnn.method, &diag), ETR_OK);
    if (platform == 1) {
      cr_assert(!prof.use_tsc);
    }
    // The lower bound (inner >= outer / 2 - 20 us) is checked on the run
    // that clears it by the most: the scheduler can stretch any single
    // outer interval (CI runs two test binaries on two cores), but not all
    // five.
    double best_margin = -INFINITY;
    double best_inner = 0.0;
    double best_outer = 0.0;
    for (int r = 0; r < 5; ++r) {
      fixture_set_inputs(&cnn);
      uint64_t before = etr_now_ns();
      cr_assert_eq(etr_method_execute(&cnn.method, &diag), ETR_OK);
      uint64_t after = etr_now_ns();
      const etr_prof_run_t *run = &prof.runs[r];
      // The run lies inside what the caller saw (a TSC conversion error
      // of a few percent would show here), and its instructions inside it.
      cr_assert_geq(run->start_ns, before);
      double outer = (double)(after - before);
      double inner = (double)(run->end_ns - run->start_ns);
      cr_assert_leq(inner, outer * 1.02 + 2000, "run %d: %.0f ns inside %.0f",
                    r, inner, outer);
      double margin = inner - (outer * 0.5 - 20000);
      if (margin > best_margin) {
        best_margin = margin;
        best_inner = inner;
        best_outer = outer;
      }
      const etr_prof_event_t *last =
          &prof.events[run->first_event + run->num_events - 1];
      cr_assert_leq(last->end_ns, run->end_ns);
    }
    cr_assert_geq(best_margin, 0.0,
                  "best of 5 runs: %.0f ns inside %.0f (platform clock %d)",
                  best_inner, best_outer, platform);
    fixture_close(&cnn);
    etr_prof_release(&prof);
  }
}
