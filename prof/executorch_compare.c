// SPDX-License-Identifier: Apache-2.0
//
// ExecuTorch's ETDump summarized per instruction (see
// executorch_compare.h).
#include "prof/executorch_compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof/etdump_reader.h"

static bool is_instruction_event(const etr_etdump_event_t *event) {
  return event->type == ETR_ETDUMP_PROFILE &&
         event->delegate_debug_id_int < 0 &&
         event->delegate_debug_id_str == NULL &&
         (strcmp(event->name, "OPERATOR_CALL") == 0 ||
          strcmp(event->name, "DELEGATE_CALL") == 0 ||
          strcmp(event->name, "MOVE_CALL") == 0 ||
          strcmp(event->name, "JF_CALL") == 0 ||
          strcmp(event->name, "FREE_CALL") == 0);
}

static etr_executorch_row_t *find_or_add(etr_executorch_profile_t *profile,
                                         const etr_etdump_event_t *event) {
  for (uint32_t r = 0; r < profile->num_rows; ++r) {
    if (profile->rows[r].chain == event->chain_index &&
        profile->rows[r].instruction == event->instruction_id) {
      return &profile->rows[r];
    }
  }
  etr_executorch_row_t *row = &profile->rows[profile->num_rows++];
  row->chain = event->chain_index;
  row->instruction = event->instruction_id;
  snprintf(row->name, sizeof(row->name), "%s", event->name);
  return row;
}

etr_error_t etr_executorch_profile_read(const uint8_t *data, size_t size,
                                        uint32_t warmup,
                                        etr_executorch_profile_t *profile,
                                        etr_diag_t *diag) {
  memset(profile, 0, sizeof(*profile));
  etr_etdump_t etdump;
  ETR_TRY(etr_etdump_read(data, size, &etdump, diag));
  double *samples =
      (double *)calloc((size_t)etdump.num_events + 1, sizeof(double));
  profile->rows = (etr_executorch_row_t *)calloc(
      (size_t)etdump.num_events + 1, sizeof(etr_executorch_row_t));
  if (samples == NULL || profile->rows == NULL) {
    free(samples);
    etr_etdump_release(&etdump);
    etr_executorch_profile_release(profile);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory reading ExecuTorch's ETDump");
  }
  // Which blocks count: Execute blocks after the warm-up ones.
  uint32_t seen = 0;
  uint32_t executes = 0;
  for (uint32_t b = 0; b < etdump.num_blocks; ++b) {
    const etr_etdump_block_t *block = &etdump.blocks[b];
    if (strcmp(block->name, "Execute") != 0) {
      continue;
    }
    if (seen++ < warmup) {
      ++profile->skipped;
      continue;
    }
    ++profile->runs;
    const etr_etdump_event_t *events = &etdump.events[block->first_event];
    for (uint32_t e = 0; e < block->num_events; ++e) {
      const etr_etdump_event_t *event = &events[e];
      if (event->type != ETR_ETDUMP_PROFILE) {
        continue;
      }
      if (strcmp(event->name, "Method::execute") == 0) {
        samples[executes++] = (double)(event->end_time - event->start_time);
      } else if (is_instruction_event(event)) {
        find_or_add(profile, event);
      }
    }
  }
  etr_prof_summarize(samples, executes, &profile->execute);
  // Durations per row, and the kernel event's name where there is one.
  for (uint32_t r = 0; r < profile->num_rows; ++r) {
    etr_executorch_row_t *row = &profile->rows[r];
    uint32_t count = 0;
    seen = 0;
    for (uint32_t b = 0; b < etdump.num_blocks; ++b) {
      const etr_etdump_block_t *block = &etdump.blocks[b];
      if (strcmp(block->name, "Execute") != 0 || seen++ < warmup) {
        continue;
      }
      for (uint32_t e = 0; e < block->num_events; ++e) {
        const etr_etdump_event_t *event =
            &etdump.events[block->first_event + e];
        if (event->type != ETR_ETDUMP_PROFILE ||
            event->chain_index != row->chain ||
            event->instruction_id != row->instruction) {
          continue;
        }
        if (is_instruction_event(event)) {
          samples[count++] = (double)(event->end_time - event->start_time);
        } else if (strncmp(event->name, "native_call_", 12) == 0) {
          snprintf(row->name, sizeof(row->name), "%s", event->name);
        }
      }
    }
    etr_prof_summarize(samples, count, &row->time);
    row->per_run_ns =
        profile->runs > 0 ? row->time.total / (double)profile->runs : 0;
  }
  free(samples);
  etr_etdump_release(&etdump);
  if (profile->runs == 0) {
    etr_executorch_profile_release(profile);
    return ETR_FAIL(diag, ETR_ERR_INVALID_PROGRAM,
                    "ExecuTorch's ETDump has no Execute block past the %u "
                    "warm-up runs",
                    warmup);
  }
  return ETR_OK;
}

void etr_executorch_profile_release(etr_executorch_profile_t *profile) {
  free(profile->rows);
  memset(profile, 0, sizeof(*profile));
}

const etr_executorch_row_t *etr_executorch_profile_row(
    const etr_executorch_profile_t *profile, uint32_t chain,
    uint32_t instruction) {
  for (uint32_t r = 0; r < profile->num_rows; ++r) {
    if (profile->rows[r].chain == (int64_t)chain &&
        profile->rows[r].instruction == (int32_t)instruction) {
      return &profile->rows[r];
    }
  }
  return NULL;
}
