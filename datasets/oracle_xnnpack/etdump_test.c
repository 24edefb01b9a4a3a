// SPDX-License-Identifier: Apache-2.0
//
// The checked-in ETDumps of XNNPACK programs (datasets/oracle_xnnpack/,
// written by ExecuTorch 1.5.1's runtime through generate.py) stay usable
// as oracle candidates: each parses with etref's ETDump reader, every
// logged tensor lies inside its debug buffer, every instruction logged
// what it should, and the program output it logged is the recorded
// executorch_output_0.npy bit for bit and agrees with the datasets:
// identical to the dataset's own output for the dataset programs
// (cnn_xnnpack, cnn_quantized_xnnpack), within model_test's float
// tolerance of the non-delegated program's ExecuTorch output for the
// fp32 ones, within one quantization step for the quantized one.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/npy.h"
#include "core/scalar_type.h"
#include "ops_reference/support/element.h"
#include "prof/etdump_reader.h"

#define DIR "datasets/oracle_xnnpack/"

typedef enum { EXACT, FLOAT_TOLERANCE, ONE_STEP } judgement_t;

typedef struct program {
  const char *name;
  const char *dataset_model;  // whose executorch_output_0.npy to match
  judgement_t judgement;
  uint32_t debug_events;     // values logged by instructions (generate.py's
                             // manifest: etdump.debug_events - 1)
} program_t;

static const program_t kPrograms[] = {
    {"cnn_xnnpack", "cnn_xnnpack", EXACT, 2},
    {"cnn_xnnpack_per_op", "cnn", FLOAT_TOLERANCE, 20},
    {"transformer_xnnpack", "transformer", FLOAT_TOLERANCE, 26},
    {"cnn_quantized_xnnpack", "cnn_quantized_xnnpack", EXACT, 2},
    {"cnn_quantized_xnnpack_per_op", "cnn_quantized", ONE_STEP, 20},
};

static uint8_t *read_all(const char *path, size_t *size) {
  void *data = NULL;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_read_file(path, 0, &data, size, &diag), ETR_OK, "%s: %s",
               path, diag.message);
  return data;
}

// One quantization step of cnn_quantized's output (its manifest).
static double output_step(void) {
  size_t size = 0;
  char *text = (char *)read_all("datasets/models/cnn_quantized/manifest.json",
                                &size);
  const char *at = strstr(text, "\"output_quantization\"");
  cr_assert_not_null(at);
  at = strstr(at, "\"scale\": ");
  cr_assert_not_null(at);
  double step = strtod(at + strlen("\"scale\": "), NULL);
  free(text);
  return step;
}

// Bytes a logged tensor reaches in the debug buffer.
static int64_t tensor_extent(const etr_etdump_tensor_t *t) {
  int64_t elements = 1;
  if (t->has_strides) {
    for (int32_t d = 0; d < t->dim; ++d) {
      if (t->sizes[d] == 0) {
        return 0;
      }
      elements += (t->sizes[d] - 1) * t->strides[d];
    }
  } else {
    for (int32_t d = 0; d < t->dim; ++d) {
      elements *= t->sizes[d];
    }
  }
  return elements *
         (int64_t)etr_scalar_type_size((etr_scalar_type_t)t->scalar_type);
}

static void check_program(const program_t *p) {
  char path[256];
  size_t etdp_size = 0;
  size_t debug_size = 0;
  snprintf(path, sizeof(path), DIR "%s/executorch.etdp", p->name);
  uint8_t *etdp = read_all(path, &etdp_size);
  snprintf(path, sizeof(path), DIR "%s/executorch.debug.bin", p->name);
  uint8_t *debug = read_all(path, &debug_size);
  etr_etdump_t dump;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_etdump_read(etdp, etdp_size, &dump, &diag), ETR_OK,
               "%s: %s", p->name, diag.message);

  const etr_etdump_tensor_t *output = NULL;
  int outputs = 0;
  uint32_t logged = 0;
  for (uint32_t e = 0; e < dump.num_events; ++e) {
    const etr_etdump_event_t *event = &dump.events[e];
    if (event->type != ETR_ETDUMP_DEBUG) {
      continue;
    }
    for (uint32_t t = 0; t < event->num_tensors; ++t) {
      const etr_etdump_tensor_t *tensor =
          &dump.tensors[event->first_tensor + t];
      cr_assert(tensor->offset >= 0 &&
                    tensor->offset + tensor_extent(tensor) <=
                        (int64_t)debug_size,
                "%s: event %u's tensor [%lld, +%lld) leaves the %zu-byte "
                "debug buffer",
                p->name, e, (long long)tensor->offset,
                (long long)tensor_extent(tensor), debug_size);
    }
    if (event->is_output) {
      ++outputs;
      cr_assert_eq(event->num_tensors, 1);
      output = &dump.tensors[event->first_tensor];
    } else {
      ++logged;
    }
  }
  cr_assert_eq(outputs, 1, "%s: %d output events", p->name, outputs);
  // Every DelegateCall logged all its arguments (inputs, then outputs),
  // every KernelCall outside the delegates its outputs.
  cr_expect_eq(logged, p->debug_events, "%s: %u values logged", p->name,
               logged);

  // The logged output against the recorded one (bit for bit) and the
  // dataset's.
  etr_npy_array_t recorded, dataset;
  snprintf(path, sizeof(path), DIR "%s/executorch_output_0.npy", p->name);
  cr_assert_eq(etr_npy_load_file(path, 0, &recorded, &diag), ETR_OK, "%s",
               diag.message);
  snprintf(path, sizeof(path), "datasets/models/%s/executorch_output_0.npy",
           p->dataset_model);
  cr_assert_eq(etr_npy_load_file(path, 0, &dataset, &diag), ETR_OK, "%s",
               diag.message);
  int64_t numel = etr_tensor_numel(&recorded.tensor);
  cr_assert_eq(output->scalar_type, (int8_t)recorded.tensor.dtype);
  cr_assert_eq(output->dim, recorded.tensor.dim);
  for (int32_t d = 0; d < output->dim; ++d) {
    cr_assert_eq(output->sizes[d], recorded.tensor.sizes[d]);
  }
  size_t bytes = (size_t)numel * etr_scalar_type_size(recorded.tensor.dtype);
  cr_expect(memcmp(debug + output->offset, recorded.tensor.data, bytes) == 0,
            "%s: the ETDump's output differs from executorch_output_0.npy",
            p->name);
  cr_assert_eq(etr_tensor_numel(&dataset.tensor), numel);
  double step = p->judgement == ONE_STEP ? output_step() : 0.0;
  double worst = 0.0;
  for (int64_t i = 0; i < numel; ++i) {
    double a = etr_load_double(recorded.tensor.dtype,
                               etr_element_at(&recorded.tensor, i));
    double b = etr_load_double(dataset.tensor.dtype,
                               etr_element_at(&dataset.tensor, i));
    double error = fabs(a - b);
    worst = error > worst ? error : worst;
    double allowed = p->judgement == EXACT          ? 0.0
                     : p->judgement == ONE_STEP     ? step * (1 + 1e-6)
                                                    : 1e-6 + 1e-5 * fabs(b);
    cr_expect(error <= allowed, "%s: element %lld is %.9g, %s has %.9g",
              p->name, (long long)i, a, p->dataset_model, b);
  }
  cr_log_info("%s: %u events, output within %.3g of %s", p->name,
              dump.num_events, worst, p->dataset_model);
  etr_npy_array_release(&recorded);
  etr_npy_array_release(&dataset);
  etr_etdump_release(&dump);
  free(etdp);
  free(debug);
}

Test(oracle_xnnpack, etdumps_parse_and_match_the_datasets) {
  for (size_t i = 0; i < sizeof(kPrograms) / sizeof(kPrograms[0]); ++i) {
    check_program(&kPrograms[i]);
  }
}
