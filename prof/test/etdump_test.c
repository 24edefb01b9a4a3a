// SPDX-License-Identifier: Apache-2.0
//
// ETDump out and in: the FlatBuffer builder against core/flatbuffer.h's
// reader; etref's ETDump of real runs read back with prof/etdump_reader.h
// (blocks, ExecuTorch's event names and order, instruction ids, times equal
// to what the tracer measured, debug events, delegate events); and the
// reader refusing truncated and corrupted files without crashing. The
// Inspector itself reads these files in //prof/test:inspector_test.
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/flatbuffer.h"
#include "prof/etdump.h"
#include "prof/etdump_reader.h"
#include "prof/flatbuffer_builder.h"
#include "prof/test/fixture.h"
#include "prof/tracer.h"

Test(flatbuffer_builder, tables_vectors_and_strings_round_trip) {
  etr_fbb_t fbb;
  etr_fbb_init(&fbb, 16);  // small: forces the buffer to grow
  etr_fbb_ref_t name = etr_fbb_create_string(&fbb, "hello", 5);
  int64_t longs[3] = {-1, 2, INT64_MAX};
  etr_fbb_ref_t vector = etr_fbb_create_scalar_vector(&fbb, longs, 3, 8);
  etr_fbb_start_table(&fbb);
  etr_fbb_add_i32(&fbb, 0, 7, 0);
  etr_fbb_ref_t child = etr_fbb_end_table(&fbb);
  etr_fbb_ref_t children[2] = {child, child};
  etr_fbb_ref_t list = etr_fbb_create_ref_vector(&fbb, children, 2);
  etr_fbb_start_table(&fbb);
  etr_fbb_add_ref(&fbb, 0, name);
  etr_fbb_add_u8(&fbb, 1, 9, 0);
  etr_fbb_add_u64(&fbb, 2, 0x0123456789abcdefull, 0);
  etr_fbb_add_ref(&fbb, 3, vector);
  etr_fbb_add_i32(&fbb, 4, -1, -1);  // equals its default: left out
  etr_fbb_add_ref(&fbb, 5, list);
  etr_fbb_add_f64(&fbb, 6, 2.5, 0.0);
  etr_fbb_ref_t root = etr_fbb_end_table(&fbb);
  const uint8_t *data;
  size_t size;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_fbb_finish(&fbb, root, "TEST", false, &data, &size, &diag),
               ETR_OK, "%s", diag.message);
  cr_assert_eq(size % 8, 0);
  cr_assert(etr_fb_has_identifier(data, size, "TEST"));
  // Copy to an 8-aligned buffer, as a file read would give.
  uint8_t *copy = (uint8_t *)aligned_alloc(8, size);
  memcpy(copy, data, size);
  etr_fb_table_t table;
  cr_assert_eq(etr_fb_root(copy, size, &table, &diag), ETR_OK, "%s",
               diag.message);
  etr_fb_string_t text;
  bool present;
  cr_assert_eq(etr_fb_string_field(&table, 0, &text, &present, &diag),
               ETR_OK);
  cr_assert(present);
  cr_assert_str_eq(text.chars, "hello");
  uint8_t small;
  cr_assert_eq(etr_fb_u8(&table, 1, 0, &small, &diag), ETR_OK);
  cr_assert_eq(small, 9);
  uint64_t big;
  cr_assert_eq(etr_fb_u64(&table, 2, 0, &big, &diag), ETR_OK);
  cr_assert_eq(big, 0x0123456789abcdefull);
  etr_fb_vector_t longs_read;
  cr_assert_eq(etr_fb_vector_field(&table, 3, 8, &longs_read, &present,
                                   &diag),
               ETR_OK);
  cr_assert_eq(longs_read.length, 3);
  cr_assert_eq(etr_fb_vector_i64(&longs_read, 0), -1);
  cr_assert_eq(etr_fb_vector_i64(&longs_read, 2), INT64_MAX);
  // Scalars and vector elements are naturally aligned in the buffer.
  cr_assert_eq((longs_read.position) % 8, 0);
  cr_assert(!etr_fb_has_field(&table, 4));
  int32_t absent;
  cr_assert_eq(etr_fb_i32(&table, 4, -1, &absent, &diag), ETR_OK);
  cr_assert_eq(absent, -1);
  etr_fb_vector_t tables;
  cr_assert_eq(etr_fb_vector_field(&table, 5, 4, &tables, &present, &diag),
               ETR_OK);
  cr_assert_eq(tables.length, 2);
  etr_fb_table_t element;
  cr_assert_eq(etr_fb_vector_table(&tables, 1, &element, &diag), ETR_OK);
  int32_t seven;
  cr_assert_eq(etr_fb_i32(&element, 0, 0, &seven, &diag), ETR_OK);
  cr_assert_eq(seven, 7);
  double half;
  cr_assert_eq(etr_fb_f64(&table, 6, 0, &half, &diag), ETR_OK);
  cr_assert_eq(half, 2.5);
  free(copy);
  etr_fbb_release(&fbb);
}

Test(flatbuffer_builder, misuse_is_reported_not_crashed) {
  etr_fbb_t fbb;
  etr_fbb_init(&fbb, 0);
  etr_fbb_start_table(&fbb);
  etr_fbb_start_table(&fbb);  // tables cannot nest
  const uint8_t *data;
  size_t size;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_fbb_finish(&fbb, 0, NULL, false, &data, &size, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  cr_assert(strstr(diag.message, "nest") != NULL, "%s", diag.message);
  cr_assert_null(data);
  etr_fbb_release(&fbb);
  etr_fbb_init(&fbb, 0);
  etr_fbb_start_table(&fbb);
  etr_fbb_add_i32(&fbb, 40, 1, 0);  // past ETR_FBB_MAX_FIELDS
  etr_fbb_end_table(&fbb);
  cr_assert_eq(etr_fbb_finish(&fbb, 0, "ABCD", true, &data, &size, &diag),
               ETR_ERR_INVALID_ARGUMENT);
  etr_fbb_release(&fbb);
}

// Profiles `runs` executions of a model and reads its ETDump back.
typedef struct {
  etr_prof_t prof;
  fixture_t fixture;
  etr_fbb_t fbb;
  uint8_t *bytes;
  size_t size;
  etr_etdump_t etdump;
  etr_etdump_summary_t summary;
} profiled_t;

static void profile(profiled_t *p, const char *model, const char *prefix,
                    int runs, size_t capture_bytes, bool load_block) {
  etr_prof_config_t config;
  etr_prof_config_init(&config);
  config.max_runs = (uint32_t)runs;
  config.capture_bytes = capture_bytes;
  etr_prof_init(&p->prof, &config);
  fixture_open(&p->fixture, model, prefix, NULL, ETR_KERNELS_REFERENCE,
               &p->prof.tracer);
  etr_diag_t diag;
  etr_diag_reset(&diag);
  cr_assert_eq(etr_prof_bind(&p->prof, &p->fixture.method, &diag), ETR_OK);
  for (int r = 0; r < runs; ++r) {
    fixture_execute(&p->fixture);
  }
  etr_etdump_options_t options;
  etr_etdump_options_init(&options);
  options.debug_events = capture_bytes != 0;
  if (load_block) {
    options.load_start_ns = 100;
    options.init_start_ns = 150;
    options.init_end_ns = 200;
    options.load_end_ns = 250;
  }
  etr_fbb_init(&p->fbb, 0);
  const uint8_t *data;
  const etr_prof_t *profs[1] = {&p->prof};
  cr_assert_eq(etr_etdump_build(profs, 1, &options, &p->fbb, &data, &p->size,
                                &p->summary, &diag),
               ETR_OK, "%s", diag.message);
  p->bytes = (uint8_t *)aligned_alloc(8, (p->size + 7) / 8 * 8);
  memcpy(p->bytes, data, p->size);
  // Size-prefixed: the first word counts the rest; then "ED00".
  uint32_t prefix_size;
  memcpy(&prefix_size, p->bytes, 4);
  cr_assert_eq(prefix_size, p->size - 4);
  cr_assert_eq(memcmp(p->bytes + 8, "ED00", 4), 0);
  cr_assert_eq(etr_etdump_read(p->bytes, p->size, &p->etdump, &diag), ETR_OK,
               "%s", diag.message);
}

static void release(profiled_t *p) {
  etr_etdump_release(&p->etdump);
  free(p->bytes);
  etr_fbb_release(&p->fbb);
  fixture_close(&p->fixture);
  etr_prof_release(&p->prof);
}

Test(etdump, cnn_runs_read_back_with_executorch_names_and_times) {
  static profiled_t p;
  profile(&p, "cnn", "", 3, 0, true);
  const etr_etdump_t *etdump = &p.etdump;
  cr_assert_eq(etdump->version, 0);
  cr_assert_eq(etdump->num_blocks, 4);
  cr_assert_str_eq(etdump->blocks[0].name, "Default");
  cr_assert_eq(etdump->blocks[0].num_events, 2);
  cr_assert_str_eq(etdump->events[0].name, "Method::init");
  cr_assert_str_eq(etdump->events[1].name, "Program::load_method");
  cr_assert_eq(etdump->events[1].start_time, 100);
  cr_assert_eq(etdump->events[1].end_time, 250);
  static const char *const kKernels[10] = {
      "native_call_convolution.out",
      "native_call__native_batch_norm_legit_no_training.out",
      "native_call_relu.out",
      "native_call_max_pool2d_with_indices.out",
      "native_call_convolution.out",
      "native_call__native_batch_norm_legit_no_training.out",
      "native_call_relu.out",
      "native_call_avg_pool2d.out",
      "native_call_permute_copy.out",
      "native_call_addmm.out",
  };
  for (uint32_t r = 0; r < 3; ++r) {
    const etr_etdump_block_t *block = &etdump->blocks[1 + r];
    cr_assert_str_eq(block->name, "Execute");
    cr_assert_eq(block->bundled_input_index, -1);
    // What ExecuTorch 1.5.1 writes for this program: 2 per instruction and
    // Method::execute.
    cr_assert_eq(block->num_events, 21);
    const etr_prof_run_t *run = &p.prof.runs[r];
    for (uint32_t i = 0; i < 10; ++i) {
      const etr_etdump_event_t *kernel =
          &etdump->events[block->first_event + 2 * i];
      const etr_etdump_event_t *op =
          &etdump->events[block->first_event + 2 * i + 1];
      const etr_prof_event_t *measured = &p.prof.events[run->first_event + i];
      cr_assert_eq(kernel->type, ETR_ETDUMP_PROFILE);
      cr_assert_str_eq(kernel->name, kKernels[i]);
      cr_assert_str_eq(op->name, "OPERATOR_CALL");
      cr_assert_eq(kernel->instruction_id, (int32_t)i);
      cr_assert_eq(op->instruction_id, (int32_t)i);
      cr_assert_eq(kernel->chain_index, 0);
      cr_assert_eq(kernel->delegate_debug_id_int, -1);
      cr_assert_null(kernel->delegate_debug_id_str);
      cr_assert_eq(kernel->start_time, measured->start_ns);
      cr_assert_eq(kernel->end_time, measured->end_ns);
      cr_assert_eq(op->start_time, measured->start_ns);
      cr_assert_eq(op->end_time, measured->end_ns);
    }
    const etr_etdump_event_t *execute =
        &etdump->events[block->first_event + 20];
    cr_assert_str_eq(execute->name, "Method::execute");
    cr_assert_eq(execute->chain_index, -1);
    cr_assert_eq(execute->instruction_id, 0);
    cr_assert_eq(execute->start_time, run->start_ns);
    cr_assert_eq(execute->end_time, run->end_ns);
  }
  cr_assert_eq(p.summary.blocks, 4);
  cr_assert_eq(p.summary.profile_events, 2 + 3 * 21);
  cr_assert_eq(p.summary.debug_events, 0);
  release(&p);
}

Test(etdump, captured_values_become_debug_events) {
  static profiled_t p;
  profile(&p, "cnn", "", 2, 1 << 20, false);
  cr_assert_eq(p.etdump.num_blocks, 2);
  for (uint32_t r = 0; r < 2; ++r) {
    const etr_etdump_block_t *block = &p.etdump.blocks[r];
    // 21 profile events + 15 intermediate outputs + 1 program output, as
    // ExecuTorch 1.5.1 logs them for this program.
    cr_assert_eq(block->num_events, 37);
    uint32_t debug = 0;
    for (uint32_t e = 0; e < block->num_events; ++e) {
      const etr_etdump_event_t *event =
          &p.etdump.events[block->first_event + e];
      if (event->type != ETR_ETDUMP_DEBUG) {
        continue;
      }
      ++debug;
      cr_assert_eq(event->value_type, 5);  // Tensor
      // 64-byte aligned data, or -1 for an empty tensor (as ExecuTorch).
      cr_assert(event->offset == -1 || event->offset % 64 == 0, "%lld",
                (long long)event->offset);
    }
    cr_assert_eq(debug, 16);
    // The first event is instruction 0's output, logged before its
    // native_call event ends; the last is the program output.
    const etr_etdump_event_t *first = &p.etdump.events[block->first_event];
    cr_assert_eq(first->type, ETR_ETDUMP_DEBUG);
    cr_assert_eq(first->instruction_id, 0);
    cr_assert_eq(first->scalar_type, 6);  // Float
    cr_assert_eq(first->dim, 4);
    const etr_etdump_event_t *last =
        &p.etdump.events[block->first_event + block->num_events - 1];
    cr_assert_eq(last->type, ETR_ETDUMP_DEBUG);
    cr_assert(last->is_output);
    cr_assert_eq(last->chain_index, -1);
  }
  release(&p);
}

Test(etdump, prim_ops_have_no_native_call_event) {
  char name[64];
  cr_assert(!etr_etdump_native_call_name("aten::sym_size.int", name,
                                         sizeof(name)));
  cr_assert(!etr_etdump_native_call_name("executorch_prim::et_view.default",
                                         name, sizeof(name)));
  cr_assert(etr_etdump_native_call_name(
      "dim_order_ops::_clone_dim_order.out", name, sizeof(name)));
  cr_assert_str_eq(name, "native_call__clone_dim_order.out");
  static profiled_t p;
  profile(&p, "dynamic_shape", "case1_", 1, 0, false);
  uint32_t operator_calls = 0;
  uint32_t native_calls = 0;
  for (uint32_t e = 0; e < p.etdump.num_events; ++e) {
    operator_calls += strcmp(p.etdump.events[e].name, "OPERATOR_CALL") == 0;
    native_calls +=
        strncmp(p.etdump.events[e].name, "native_call_", 12) == 0;
  }
  cr_assert_eq(operator_calls, p.prof.num_events);
  cr_assert_lt(native_calls, operator_calls);
  release(&p);
}

Test(etdump, delegate_events_carry_their_debug_ids) {
  static profiled_t p;
  profile(&p, "delegate_demo_segment", "", 1, 0, false);
  uint32_t delegate_calls = 0;
  uint32_t delegated = 0;
  for (uint32_t e = 0; e < p.etdump.num_events; ++e) {
    const etr_etdump_event_t *event = &p.etdump.events[e];
    delegate_calls += strcmp(event->name, "DELEGATE_CALL") == 0;
    if (event->delegate_debug_id_int >= 0) {
      ++delegated;
      cr_assert_str_eq(event->name, "");  // named by its id, as ExecuTorch
      cr_assert_geq(event->instruction_id, 0);
    }
  }
  cr_assert_gt(delegate_calls, 0);
  cr_assert_eq(delegated, p.prof.num_delegate_events);
  release(&p);
}

Test(etdump, the_reader_refuses_damaged_files) {
  static profiled_t p;
  profile(&p, "mlp", "", 1, 1 << 16, true);
  etr_diag_t diag;
  uint8_t *copy = (uint8_t *)malloc(p.size);
  // Every truncation either parses (a shorter valid prefix cannot exist
  // with a size prefix, so none should) or fails cleanly.
  for (size_t cut = 0; cut < p.size; cut += 7) {
    memcpy(copy, p.bytes, cut);
    etr_etdump_t etdump;
    etr_diag_reset(&diag);
    cr_assert_neq(etr_etdump_read(copy, cut, &etdump, &diag), ETR_OK);
  }
  // Flipped bytes: parse or fail, never crash (ASan watches).
  for (size_t at = 0; at < p.size; ++at) {
    memcpy(copy, p.bytes, p.size);
    copy[at] ^= 0x5a;
    etr_etdump_t etdump;
    etr_diag_reset(&diag);
    if (etr_etdump_read(copy, p.size, &etdump, &diag) == ETR_OK) {
      etr_etdump_release(&etdump);
    }
  }
  free(copy);
  release(&p);
}
