// SPDX-License-Identifier: Apache-2.0
//
// Map files and alignment (see align.h).
#include "prof/oracle/align.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *origin;
  etr_diag_t *diag;
} reader_t;

static etr_error_t bad(const reader_t *r, const etr_json_t *at,
                       const char *what, const char *detail) {
  return ETR_FAIL(r->diag, ETR_ERR_INVALID_ARGUMENT, "map %s line %u: %s%s",
                  r->origin, at != NULL ? at->line : 0, what, detail);
}

static etr_error_t read_u32(const reader_t *r, const etr_json_t *value,
                            const char *key, uint32_t *out) {
  if (value->type != ETR_JSON_NUMBER || !value->is_integer ||
      value->integer < 0 || value->integer > (int64_t)UINT32_MAX - 1) {
    return bad(r, value, key, " must be a non-negative integer");
  }
  *out = (uint32_t)value->integer;
  return ETR_OK;
}

static etr_error_t read_pattern(const reader_t *r, const etr_json_t *object,
                                bool candidate, etr_oracle_pattern_t *pattern) {
  memset(pattern, 0, sizeof(*pattern));
  pattern->debug_id = -1;
  if (object == NULL || object->type != ETR_JSON_OBJECT) {
    return bad(r, object, candidate ? "\"candidate\"" : "\"reference\"",
               " must be an object");
  }
  bool has_instruction = false;
  bool has_output_index = false;
  for (uint32_t i = 0; i < object->count; ++i) {
    const char *key = object->keys[i];
    const etr_json_t *value = &object->items[i];
    if (strcmp(key, "chain") == 0) {
      ETR_TRY(read_u32(r, value, key, &pattern->chain));
    } else if (strcmp(key, "instruction") == 0) {
      ETR_TRY(read_u32(r, value, key, &pattern->instruction));
      has_instruction = true;
    } else if (strcmp(key, "occurrence") == 0) {
      ETR_TRY(read_u32(r, value, key, &pattern->occurrence));
    } else if (strcmp(key, "output") == 0) {
      ETR_TRY(read_u32(r, value, key, &pattern->output));
      has_output_index = true;
    } else if (strcmp(key, "program_output") == 0) {
      ETR_TRY(read_u32(r, value, key, &pattern->output));
      pattern->program_output = true;
    } else if (candidate && strcmp(key, "delegate_debug_id") == 0) {
      uint32_t id = 0;
      ETR_TRY(read_u32(r, value, key, &id));
      pattern->has_debug_id = true;
      pattern->debug_id = id;
    } else if (candidate && strcmp(key, "delegate_debug_name") == 0) {
      if (value->type != ETR_JSON_STRING || value->length == 0) {
        return bad(r, value, key, " must be a non-empty string");
      }
      pattern->debug_name = value->string;
    } else {
      return bad(r, value, "unknown key: ", key);
    }
  }
  if (pattern->program_output) {
    if (has_instruction || has_output_index || pattern->has_debug_id ||
        pattern->debug_name != NULL) {
      return bad(r, object,
                 "\"program_output\" stands alone (no instruction, output "
                 "or delegate fields)",
                 "");
    }
    return ETR_OK;
  }
  if (!has_instruction) {
    return bad(r, object, "needs \"instruction\" or \"program_output\"", "");
  }
  return ETR_OK;
}

etr_error_t etr_oracle_map_parse(const char *text, size_t length,
                                 const char *origin, etr_oracle_map_t *map,
                                 etr_diag_t *diag) {
  memset(map, 0, sizeof(*map));
  reader_t r = {.origin = origin, .diag = diag};
  etr_error_t status = etr_json_parse(text, length, &map->document, diag);
  if (status != ETR_OK) {
    etr_diag_prefix(diag, "map %s", origin);
    return status;
  }
  const etr_json_t *root = &map->document.root;
  const etr_json_t *format = etr_json_get(root, "format");
  const etr_json_t *version = etr_json_get(root, "version");
  const etr_json_t *method = etr_json_get(root, "method");
  const etr_json_t *entries = etr_json_get(root, "entries");
  if (root->type != ETR_JSON_OBJECT) {
    status = bad(&r, root, "the map must be a JSON object", "");
  } else if (format == NULL || format->type != ETR_JSON_STRING ||
             strcmp(format->string, "etref-oracle-map") != 0) {
    status = bad(&r, format != NULL ? format : root,
                 "\"format\" must be \"etref-oracle-map\"", "");
  } else if (version == NULL || version->type != ETR_JSON_NUMBER ||
             !version->is_integer || version->integer != 1) {
    status = bad(&r, version != NULL ? version : root,
                 "\"version\" must be 1 (the only version this etref reads)",
                 "");
  } else if (method != NULL && method->type != ETR_JSON_STRING) {
    status = bad(&r, method, "\"method\" must be a string", "");
  } else if (entries == NULL || entries->type != ETR_JSON_ARRAY) {
    status = bad(&r, entries != NULL ? entries : root,
                 "\"entries\" must be an array", "");
  }
  if (status == ETR_OK) {
    map->method = method != NULL ? method->string : NULL;
    map->entries = (etr_oracle_map_entry_t *)calloc(
        entries->count + 1, sizeof(etr_oracle_map_entry_t));
    if (map->entries == NULL) {
      status = ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                        "out of memory reading map %s", origin);
    }
  }
  for (uint32_t i = 0; status == ETR_OK && i < entries->count; ++i) {
    const etr_json_t *entry = &entries->items[i];
    etr_oracle_map_entry_t *out = &map->entries[map->count];
    if (entry->type != ETR_JSON_OBJECT) {
      status = bad(&r, entry, "an entry must be an object", "");
      break;
    }
    out->line = entry->line;
    status = read_pattern(&r, etr_json_get(entry, "candidate"), true,
                          &out->candidate);
    if (status == ETR_OK) {
      status = read_pattern(&r, etr_json_get(entry, "reference"), false,
                            &out->reference);
    }
    const etr_json_t *op = etr_json_get(entry, "operator");
    out->operator_name =
        op != NULL && op->type == ETR_JSON_STRING ? op->string : NULL;
    map->names_outputs = map->names_outputs || out->reference.program_output;
    ++map->count;
  }
  if (status != ETR_OK) {
    etr_oracle_map_release(map);
  }
  return status;
}

void etr_oracle_map_release(etr_oracle_map_t *map) {
  free(map->entries);
  etr_json_release(&map->document);
  memset(map, 0, sizeof(*map));
}

// ---- alignment --------------------------------------------------------------

static bool matches(const etr_oracle_pattern_t *pattern,
                    const etr_oracle_record_t *record) {
  const etr_oracle_key_t *key = &record->key;
  if (pattern->program_output) {
    return key->origin == ETR_ORACLE_FROM_OUTPUT &&
           key->position == pattern->output;
  }
  bool delegate = pattern->has_debug_id || pattern->debug_name != NULL;
  if (key->origin != (delegate ? ETR_ORACLE_FROM_DELEGATE
                               : ETR_ORACLE_FROM_INSTRUCTION) ||
      key->chain != pattern->chain ||
      key->instruction != pattern->instruction ||
      key->occurrence != pattern->occurrence ||
      key->position != pattern->output) {
    return false;
  }
  if (pattern->has_debug_id && key->debug_id != pattern->debug_id) {
    return false;
  }
  if (pattern->debug_name != NULL &&
      (key->debug_name == NULL ||
       strcmp(key->debug_name, pattern->debug_name) != 0)) {
    return false;
  }
  return true;
}

static etr_oracle_key_t target_key(const etr_oracle_pattern_t *pattern) {
  etr_oracle_key_t key = {
      .origin = pattern->program_output ? ETR_ORACLE_FROM_OUTPUT
                                        : ETR_ORACLE_FROM_INSTRUCTION,
      .chain = pattern->program_output ? 0 : pattern->chain,
      .instruction = pattern->program_output ? 0 : pattern->instruction,
      .occurrence = pattern->program_output ? 0 : pattern->occurrence,
      .position = pattern->output,
      .debug_id = -1,
  };
  return key;
}

const etr_oracle_record_t *etr_oracle_alignment_find(
    const etr_oracle_alignment_t *alignment,
    const etr_oracle_key_t *reference, int32_t *map_entry) {
  for (uint32_t i = 0; i < alignment->count; ++i) {
    if (etr_oracle_key_equal(&alignment->pairs[i].reference, reference)) {
      if (map_entry != NULL) {
        *map_entry = alignment->pairs[i].map_entry;
      }
      return alignment->pairs[i].candidate;
    }
  }
  if (map_entry != NULL) {
    *map_entry = -1;
  }
  return NULL;
}

static void add_pair(etr_oracle_alignment_t *alignment,
                     const etr_oracle_key_t *reference,
                     const etr_oracle_record_t *candidate, int32_t entry,
                     bool *used) {
  *used = false;
  if (etr_oracle_alignment_find(alignment, reference, NULL) != NULL) {
    return;  // the first value for a reference value wins
  }
  etr_oracle_pair_t *pair = &alignment->pairs[alignment->count++];
  pair->reference = *reference;  // names point into the candidate's set
  pair->candidate = candidate;
  pair->map_entry = entry;
  *used = true;
}

etr_error_t etr_oracle_align(const etr_oracle_values_t *candidate,
                             const etr_oracle_map_t *map, bool same_program,
                             bool intermediates,
                             etr_oracle_alignment_t *alignment,
                             etr_diag_t *diag) {
  memset(alignment, 0, sizeof(*alignment));
  alignment->candidate_records = candidate->count;
  alignment->by_map = map != NULL;
  alignment->by_key = map == NULL && same_program && intermediates;
  // One pair per candidate record at most.
  alignment->pairs = (etr_oracle_pair_t *)calloc(candidate->count + 1,
                                                 sizeof(etr_oracle_pair_t));
  ETR_CHECK(diag, alignment->pairs != NULL, ETR_ERR_MEMORY_ALLOCATION_FAILED,
            "out of memory aligning %u values", candidate->count);
  bool *aligned = (bool *)calloc(candidate->count + 1, sizeof(bool));
  if (aligned == NULL) {
    etr_oracle_alignment_release(alignment);
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "out of memory aligning %u values", candidate->count);
  }
  if (map != NULL) {
    for (uint32_t e = 0; e < map->count; ++e) {
      const etr_oracle_map_entry_t *entry = &map->entries[e];
      if (!intermediates && !entry->reference.program_output) {
        continue;
      }
      bool any = false;
      for (uint32_t i = 0; i < candidate->count; ++i) {
        const etr_oracle_record_t *record = &candidate->records[i];
        if (!matches(&entry->candidate, record)) {
          continue;
        }
        etr_oracle_key_t target = target_key(&entry->reference);
        bool used = false;
        add_pair(alignment, &target, record, (int32_t)e, &used);
        aligned[i] = aligned[i] || used;
        any = true;
      }
      alignment->unused_entries += !any;
    }
  }
  for (uint32_t i = 0; i < candidate->count; ++i) {
    const etr_oracle_record_t *record = &candidate->records[i];
    bool by_key =
        (record->key.origin == ETR_ORACLE_FROM_OUTPUT &&
         (map == NULL || !map->names_outputs)) ||
        (record->key.origin != ETR_ORACLE_FROM_OUTPUT && alignment->by_key);
    if (by_key && !aligned[i]) {
      bool used = false;
      add_pair(alignment, &record->key, record, -1, &used);
      aligned[i] = used;
    }
    alignment->unaligned += !aligned[i];
  }
  free(aligned);
  return ETR_OK;
}

void etr_oracle_alignment_release(etr_oracle_alignment_t *alignment) {
  free(alignment->pairs);
  memset(alignment, 0, sizeof(*alignment));
}
