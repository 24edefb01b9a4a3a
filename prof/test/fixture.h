// SPDX-License-Identifier: Apache-2.0
//
// Test fixture for prof/ tests: loads a dataset model (Bazel runs tests
// from the runfiles root, so paths are relative to the repository root)
// with the reference or optimized kernels and the demo delegate, an
// optional tracer, and its recorded inputs. Failures abort the test through
// Criterion's assertions.
#ifndef ETR_PROF_TEST_FIXTURE_H
#define ETR_PROF_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/data_map.h"
#include "core/event_tracer.h"
#include "core/method.h"
#include "core/npy.h"
#include "core/program.h"

#define FIXTURE_MAX_INPUTS 8

typedef struct fixture {
  etr_program_t program;
  etr_data_map_t data;
  etr_method_t method;
  etr_npy_array_t inputs[FIXTURE_MAX_INPUTS];
  uint32_t num_inputs;
} fixture_t;

// The models every prof/ test walks: name, input file prefix, data file.
typedef struct fixture_model {
  const char *model;
  const char *prefix;
  const char *data;
} fixture_model_t;

extern const fixture_model_t fixture_models[];
extern const size_t fixture_model_count;

// Loads datasets/models/<model>/model.pte (and <data> when not NULL) and
// its inputs <prefix>input_<i>.npy; `tracer` may be NULL.
void fixture_open(fixture_t *fixture, const char *model, const char *prefix,
                  const char *data, etr_kernel_variant_t variant,
                  const etr_event_tracer_t *tracer);

// Sets the recorded inputs (before every execution: plans may reuse an
// input's memory once it is dead).
void fixture_set_inputs(fixture_t *fixture);

// Sets the inputs and executes once; asserts success.
void fixture_execute(fixture_t *fixture);

void fixture_close(fixture_t *fixture);

#endif  // ETR_PROF_TEST_FIXTURE_H
