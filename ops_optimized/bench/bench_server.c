// SPDX-License-Identifier: Apache-2.0
//
// The etref side of the benchmark (ops_optimized/bench/run.sh). bench.py
// starts this program once and drives it line by line over stdin/stdout,
// so that in one run it can interleave etref's reference and optimized
// kernels with ExecuTorch's runtime (which runs in bench.py's own process)
// on the same .pte programs and inputs. Each request is one line, each
// reply one line starting with "ok" or "error":
//
//   machine                     -> ok isa=avx512 cpus=2
//   peak ITERATIONS             -> ok flops=F cpu_ns=T wall_ns=W
//       (24 chains of FMAs of the widest vector; GFLOP/s = F / T)
//   bandwidth PATTERN FLOATS PASSES
//                               -> ok bytes=B cpu_ns=T wall_ns=W
//       (PATTERN read | copy | triad | copy_stream | triad_stream over
//        arrays of FLOATS floats each, PASSES passes; roofline.h says
//        how bytes are counted)
//   load SLOT VARIANT PROGRAM [INPUT.npy ...]   (VARIANT: reference,
//                               optimized, or fused: optimized + fuse.h)
//                               -> ok instructions=N kernels=K flops=F
//                                  bytes=B class=C has_optimized=0|1
//                                  op=NAME inputs_reused=0|1
//       (loads method "forward" of PROGRAM with the reference or
//        optimized kernels into SLOT 0..15, binds the inputs and runs it
//        once; flops and bytes are prof/cost_model.h's figures for one
//        execution, summed over the instructions; op and has_optimized
//        describe the first kernel call; inputs_reused says whether the
//        memory plan gives part of an input's bytes to another value, so
//        that an execution changes what the next one reads unless the
//        inputs are set again: `time ... fresh`)
//   time SLOT ITERATIONS [fresh] -> ok cpu_ns=T wall_ns=W
//                                  [inputs_cpu_ns=I inputs_wall_ns=J]
//       (ITERATIONS executions back to back; thread CPU time and wall
//        time of the whole batch. With `fresh`, the inputs are set
//        before every execution, as an application's forward() does:
//        a program's memory plan may give an input's bytes to a later
//        tensor once the input is dead (ExecuTorch's planner does, in
//        every dataset model but cond), so an execution that does not
//        set them again runs on what the previous one left there. A
//        batch of ITERATIONS settings alone is timed first (I, J) and
//        subtracted from T and W, so the figures are the executions')
//   save SLOT OUTPUT PATH.npy   -> ok
//   unload SLOT                 -> ok
//   quit
//
// Thread CPU time (CLOCK_THREAD_CPUTIME_ID) is the primary clock: on a
// shared machine it leaves out the time other processes hold the core.
// Nothing here allocates while timing.
#define _POSIX_C_SOURCE 200809L

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "core/kernel.h"
#include "core/method.h"
#include "ops_optimized/fuse/fuse.h"
#include "core/npy.h"
#include "core/platform.h"
#include "core/prim_ops.h"
#include "core/program.h"
#include "ops_optimized/bench/roofline.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "prof/cost_model.h"

#define MAX_SLOTS 16
#define MAX_INPUTS 16
#define MAX_WORDS (4 + MAX_INPUTS)

typedef struct slot {
  bool used;
  etr_program_t program;
  etr_method_t method;
  etr_npy_array_t inputs[MAX_INPUTS];
  uint32_t num_inputs;
} slot_t;

static etr_kernel_registry_t g_kernels;
static slot_t g_slots[MAX_SLOTS];

static uint64_t clock_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void release_slot(slot_t *slot) {
  if (!slot->used) {
    return;
  }
  etr_method_release(&slot->method);
  etr_program_release(&slot->program);
  for (uint32_t i = 0; i < slot->num_inputs; ++i) {
    etr_npy_array_release(&slot->inputs[i]);
  }
  memset(slot, 0, sizeof(*slot));
}

static slot_t *slot_at(const char *word) {
  long index = word != NULL ? strtol(word, NULL, 10) : -1;
  return index >= 0 && index < MAX_SLOTS ? &g_slots[index] : NULL;
}

// Whether a planned value other than an input shares bytes with a planned
// input (ExecuTorch's planner reuses a dead input's bytes).
static int inputs_reused(const etr_method_t *method) {
  for (uint32_t k = 0; k < method->num_inputs; ++k) {
    const etr_value_info_t *in = &method->value_info[method->inputs[k]];
    if (in->storage != ETR_STORAGE_PLANNED || in->nbytes == 0) {
      continue;
    }
    for (uint32_t v = 0; v < method->num_values; ++v) {
      const etr_value_info_t *other = &method->value_info[v];
      bool is_input = false;
      for (uint32_t j = 0; j < method->num_inputs; ++j) {
        is_input = is_input || method->inputs[j] == v;
      }
      if (!is_input && other->storage == ETR_STORAGE_PLANNED &&
          other->memory_id == in->memory_id && other->nbytes > 0 &&
          other->memory_offset < in->memory_offset + in->nbytes &&
          in->memory_offset < other->memory_offset + other->nbytes) {
        return 1;
      }
    }
  }
  return 0;
}

// Sums the cost model over every instruction and names the first kernel.
static void describe(const etr_method_t *method, char *reply, size_t size) {
  double flops = 0.0, bytes = 0.0;
  uint32_t instructions = 0, kernels = 0;
  const char *first_op = "-";
  const char *first_class = "none";
  int has_optimized = 0;
  for (uint32_t c = 0; c < method->num_chains; ++c) {
    const etr_chain_t *chain = &method->chains[c];
    for (uint32_t i = 0; i < chain->num_instructions; ++i) {
      const etr_instruction_t *instruction = &chain->instructions[i];
      etr_prof_cost_t cost;
      etr_prof_cost(method, c, i, &cost);
      flops += cost.flops;
      bytes += cost.bytes;
      ++instructions;
      if (instruction->kind != ETR_INSTRUCTION_KERNEL_CALL) {
        continue;
      }
      if (kernels++ == 0) {
        const etr_operator_t *op = &method->operators[instruction->callee];
        first_op = op->name;
        first_class = etr_cost_class_name(cost.cost_class);
        has_optimized = op->entry != NULL &&
                        op->entry->variants[ETR_KERNELS_OPTIMIZED] != NULL;
      }
    }
  }
  // "data movement" -> "data_movement": one word per field.
  char cost_class[32];
  snprintf(cost_class, sizeof(cost_class), "%s", first_class);
  for (char *p = cost_class; *p != '\0'; ++p) {
    *p = *p == ' ' ? '_' : *p;
  }
  snprintf(reply, size,
           "ok instructions=%u kernels=%u flops=%.0f bytes=%.0f class=%s "
           "has_optimized=%d op=%s inputs_reused=%d",
           instructions, kernels, flops, bytes, cost_class, has_optimized,
           first_op, inputs_reused(method));
}

static void command_load(char **words, int count, char *reply,
                         size_t size) {
  slot_t *slot = slot_at(words[1]);
  if (slot == NULL || count < 4 || count - 4 > MAX_INPUTS) {
    snprintf(reply, size, "error usage: load SLOT VARIANT PROGRAM [NPY...]");
    return;
  }
  release_slot(slot);
  slot->used = true;
  etr_kernel_variant_t variant = strcmp(words[2], "reference") == 0
                                     ? ETR_KERNELS_REFERENCE
                                     : ETR_KERNELS_OPTIMIZED;
  bool fuse = strcmp(words[2], "fused") == 0;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_program_load_file(words[3], 0, &slot->program, &diag);
  if (status == ETR_OK) {
    etr_method_config_t config;
    etr_method_config_init(&config, &g_kernels);
    config.variant = variant;
    status = etr_method_load(&slot->program, "forward", &config,
                             &slot->method, &diag);
    if (status == ETR_OK && fuse) {
      status = etr_opt_fuse_method(&slot->method, NULL, &diag);
    } else if (status == ETR_OK && variant == ETR_KERNELS_OPTIMIZED) {
      etr_opt_prepack_method(&slot->method);
    }
  }
  for (int i = 4; i < count && status == ETR_OK; ++i) {
    etr_npy_array_t *input = &slot->inputs[slot->num_inputs++];
    status = etr_npy_load_file(words[i], 0, input, &diag);
    if (status == ETR_OK) {
      status = etr_method_set_input_tensor(&slot->method, (uint32_t)(i - 4),
                                           &input->tensor, &diag);
    }
  }
  if (status == ETR_OK) {
    status = etr_method_execute(&slot->method, &diag);
  }
  if (status != ETR_OK) {
    snprintf(reply, size, "error %s: %s", etr_error_name(status),
             diag.message);
    release_slot(slot);
    return;
  }
  describe(&slot->method, reply, size);
}

static etr_error_t set_inputs(slot_t *slot, etr_diag_t *diag) {
  for (uint32_t k = 0; k < slot->num_inputs; ++k) {
    ETR_TRY(etr_method_set_input_tensor(&slot->method, k,
                                        &slot->inputs[k].tensor, diag));
  }
  return ETR_OK;
}

static uint64_t minus(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

static void command_time(char **words, int count, char *reply, size_t size) {
  slot_t *slot = slot_at(words[1]);
  long iterations = count >= 3 ? strtol(words[2], NULL, 10) : 0;
  bool fresh = count >= 4 && strcmp(words[3], "fresh") == 0;
  if (slot == NULL || !slot->used || iterations < 1 ||
      (count >= 4 && !fresh)) {
    snprintf(reply, size,
             "error usage: time SLOT ITERATIONS [fresh] (loaded slot)");
    return;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status = ETR_OK;
  // The settings alone first: an output may be planned over an input's
  // bytes (the input dead by then), so the executions come last and leave
  // the outputs `save` reads.
  uint64_t inputs_cpu = 0;
  uint64_t inputs_wall = 0;
  if (fresh) {
    inputs_wall = clock_ns(CLOCK_MONOTONIC);
    inputs_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < iterations && status == ETR_OK; ++i) {
      status = set_inputs(slot, &diag);
    }
    inputs_cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - inputs_cpu;
    inputs_wall = clock_ns(CLOCK_MONOTONIC) - inputs_wall;
  }
  uint64_t wall = clock_ns(CLOCK_MONOTONIC);
  uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long i = 0; i < iterations && status == ETR_OK; ++i) {
    if (fresh) {
      status = set_inputs(slot, &diag);
    }
    if (status == ETR_OK) {
      status = etr_method_execute(&slot->method, &diag);
    }
  }
  cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
  wall = clock_ns(CLOCK_MONOTONIC) - wall;
  if (status != ETR_OK) {
    snprintf(reply, size, "error %s: %s", etr_error_name(status),
             diag.message);
    return;
  }
  if (!fresh) {
    snprintf(reply, size, "ok cpu_ns=%llu wall_ns=%llu",
             (unsigned long long)cpu, (unsigned long long)wall);
    return;
  }
  snprintf(reply, size,
           "ok cpu_ns=%llu wall_ns=%llu inputs_cpu_ns=%llu "
           "inputs_wall_ns=%llu",
           (unsigned long long)minus(cpu, inputs_cpu),
           (unsigned long long)minus(wall, inputs_wall),
           (unsigned long long)inputs_cpu, (unsigned long long)inputs_wall);
}

static void command_save(char **words, int count, char *reply, size_t size) {
  slot_t *slot = slot_at(words[1]);
  if (slot == NULL || !slot->used || count < 4) {
    snprintf(reply, size, "error usage: save SLOT OUTPUT PATH");
    return;
  }
  const etr_evalue_t *output =
      etr_method_output(&slot->method, (uint32_t)strtoul(words[2], NULL, 10));
  if (output == NULL || output->tag != ETR_TAG_TENSOR) {
    snprintf(reply, size, "error output %s is not a tensor", words[2]);
    return;
  }
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_error_t status =
      etr_npy_write_file(words[3], output->u.as_tensor, &diag);
  if (status == ETR_OK) {
    snprintf(reply, size, "ok");
  } else {
    snprintf(reply, size, "error %s", diag.message);
  }
}

static void command_peak(char **words, int count, char *reply, size_t size) {
  long iterations = count >= 2 ? strtol(words[1], NULL, 10) : 0;
  if (iterations < 1) {
    snprintf(reply, size, "error usage: peak ITERATIONS");
    return;
  }
  float sink = 0.0f;
  uint64_t wall = clock_ns(CLOCK_MONOTONIC);
  uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  double flops = etr_bench_fma_chains(iterations, &sink);
  cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
  wall = clock_ns(CLOCK_MONOTONIC) - wall;
  snprintf(reply, size, "ok flops=%.0f cpu_ns=%llu wall_ns=%llu sink=%g",
           flops, (unsigned long long)cpu, (unsigned long long)wall,
           (double)sink);
}

static void command_bandwidth(char **words, int count, char *reply,
                              size_t size) {
  static const char *const kPatterns[] = {"read", "copy", "triad",
                                          "copy_stream", "triad_stream"};
  int pattern = -1;
  for (int p = 0; p < 5 && count >= 4; ++p) {
    if (strcmp(words[1], kPatterns[p]) == 0) {
      pattern = p;
    }
  }
  size_t floats = count >= 4 ? (size_t)strtoull(words[2], NULL, 10) : 0;
  long passes = count >= 4 ? strtol(words[3], NULL, 10) : 0;
  floats = (floats + 63) / 64 * 64;
  if (pattern < 0 || floats == 0 || passes < 1) {
    snprintf(reply, size,
             "error usage: bandwidth read|copy|triad|copy_stream|"
             "triad_stream FLOATS PASSES");
    return;
  }
  // The memory a method's planned pools get (core/platform.h: huge pages
  // for large ones), so the loops are measured as etref's ops run.
  etr_pages_t pages[3];
  bool have = true;
  for (int i = 0; i < 3; ++i) {
    have = etr_pages_alloc(floats * sizeof(float), &pages[i]) && have;
  }
  if (!have) {
    for (int i = 0; i < 3; ++i) {
      etr_pages_free(&pages[i]);
    }
    snprintf(reply, size, "error out of memory");
    return;
  }
  float *a = (float *)pages[0].data;
  float *b = (float *)pages[1].data;
  float *c = (float *)pages[2].data;
  for (size_t i = 0; i < floats; ++i) {
    a[i] = (float)(i & 255);
    b[i] = 1.0f;
    c[i] = 0.25f;
  }
  const char *isa = NULL;
  etr_bench_pass_fn pass = etr_bench_pass(&isa);
  etr_bench_pattern_t which = (etr_bench_pattern_t)pattern;
  float sink = pass(which, a, b, c, floats);  // warm the caches
  uint64_t wall = clock_ns(CLOCK_MONOTONIC);
  uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  for (long p = 0; p < passes; ++p) {
    sink += pass(which, a, b, c, floats);
  }
  cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
  wall = clock_ns(CLOCK_MONOTONIC) - wall;
  double bytes =
      etr_bench_pattern_bytes(which) * (double)floats * (double)passes;
  snprintf(reply, size, "ok bytes=%.0f cpu_ns=%llu wall_ns=%llu sink=%g",
           bytes, (unsigned long long)cpu, (unsigned long long)wall,
           (double)sink);
  for (int i = 0; i < 3; ++i) {
    etr_pages_free(&pages[i]);
  }
}

static int split(char *line, char **words) {
  int count = 0;
  for (char *word = strtok(line, " \t\r\n"); word != NULL && count < MAX_WORDS;
       word = strtok(NULL, " \t\r\n")) {
    words[count++] = word;
  }
  return count;
}

int main(void) {
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_registry_init(&g_kernels);
  if (etr_registry_register_table(&g_kernels, etr_prim_kernels,
                                  etr_prim_kernel_count,
                                  ETR_KERNELS_REFERENCE, &diag) != ETR_OK ||
      etr_registry_register_table(&g_kernels, etr_reference_kernels,
                                  etr_reference_kernel_count,
                                  ETR_KERNELS_REFERENCE, &diag) != ETR_OK ||
      etr_registry_register_table(&g_kernels, etr_optimized_kernels,
                                  etr_optimized_kernel_count,
                                  ETR_KERNELS_OPTIMIZED, &diag) != ETR_OK) {
    fprintf(stderr, "bench_server: kernel registry: %s\n", diag.message);
    return 1;
  }
  static char line[8192];
  static char reply[1024];
  char *words[MAX_WORDS];
  while (fgets(line, sizeof(line), stdin) != NULL) {
    int count = split(line, words);
    if (count == 0) {
      continue;
    }
    const char *verb = words[0];
    if (strcmp(verb, "quit") == 0) {
      break;
    } else if (strcmp(verb, "machine") == 0) {
      const char *isa = NULL;
      etr_bench_pass(&isa);
      snprintf(reply, sizeof(reply), "ok isa=%s", isa);
    } else if (strcmp(verb, "peak") == 0) {
      command_peak(words, count, reply, sizeof(reply));
    } else if (strcmp(verb, "bandwidth") == 0) {
      command_bandwidth(words, count, reply, sizeof(reply));
    } else if (strcmp(verb, "load") == 0) {
      command_load(words, count, reply, sizeof(reply));
    } else if (strcmp(verb, "time") == 0) {
      command_time(words, count, reply, sizeof(reply));
    } else if (strcmp(verb, "save") == 0) {
      command_save(words, count, reply, sizeof(reply));
    } else if (strcmp(verb, "unload") == 0) {
      slot_t *slot = slot_at(count >= 2 ? words[1] : NULL);
      if (slot != NULL) {
        release_slot(slot);
      }
      snprintf(reply, sizeof(reply), slot != NULL ? "ok" : "error slot");
    } else {
      snprintf(reply, sizeof(reply), "error unknown request %.100s", verb);
    }
    // Replies are one line: newlines inside messages become spaces.
    for (char *p = reply; *p != '\0'; ++p) {
      *p = *p == '\n' ? ' ' : *p;
    }
    printf("%s\n", reply);
    fflush(stdout);
  }
  for (int i = 0; i < MAX_SLOTS; ++i) {
    release_slot(&g_slots[i]);
  }
  return 0;
}
