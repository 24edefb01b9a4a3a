// SPDX-License-Identifier: Apache-2.0
//
// `etref inspect`: prints what a program holds, as etref sees it after
// loading: header and segments, then per method its planned buffers,
// every value (type, dtype, shape, where its bytes live) and every
// instruction (kind, operator, arguments). For debugging programs and
// for reading what the exporter emitted.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/bundled_program.h"
#include "core/file.h"
#include "core/method.h"
#include "core/program.h"

static const char kInspectUsage[] =
    "usage: etref inspect PROGRAM [--method NAME] [--data FILE.ptd]\n"
    "\n"
    "Prints the program's layout, and for each method (or NAME) its planned\n"
    "buffers, values and instructions.\n";

static const char *storage_name(etr_tensor_storage_t storage) {
  switch (storage) {
    case ETR_STORAGE_CONSTANT:
      return "constant";
    case ETR_STORAGE_PLANNED:
      return "planned";
    case ETR_STORAGE_EXTERNAL:
      return "external";
    default:
      return "unbound";
  }
}

static void print_value(const etr_method_t *method, uint32_t index) {
  const etr_evalue_t *value = &method->values[index];
  const etr_value_info_t *info = &method->value_info[index];
  printf("  v%-5u %-18s", index, etr_tag_name(value->tag));
  switch (value->tag) {
    case ETR_TAG_INT:
      printf(" %lld", (long long)value->u.as_int);
      break;
    case ETR_TAG_DOUBLE:
      printf(" %.9g", value->u.as_double);
      break;
    case ETR_TAG_BOOL:
      printf(" %s", value->u.as_bool ? "true" : "false");
      break;
    case ETR_TAG_STRING:
      printf(" \"%.60s\"", value->u.as_string.data);
      break;
    case ETR_TAG_TENSOR: {
      char shape[160];
      etr_tensor_describe(value->u.as_tensor, shape, sizeof(shape));
      printf(" %s %s", shape, storage_name(info->storage));
      if (info->storage == ETR_STORAGE_PLANNED) {
        printf(" mem_id %u offset %llu (%zu bytes)", info->memory_id,
               (unsigned long long)info->memory_offset, info->nbytes);
      }
      if (info->data_buffer_index > 0) {
        printf(" data_buffer %u", info->data_buffer_index);
      }
      if (info->fully_qualified_name != NULL) {
        printf(" '%s'", info->fully_qualified_name);
      }
      break;
    }
    case ETR_TAG_LIST_INT:
    case ETR_TAG_LIST_TENSOR:
    case ETR_TAG_LIST_OPTIONAL_TENSOR: {
      size_t length = value->tag == ETR_TAG_LIST_INT
                          ? value->u.as_int_list.length
                          : value->u.as_tensor_list.length;
      etr_evalue_t *const *items = value->tag == ETR_TAG_LIST_INT
                                       ? value->u.as_int_list.items
                                       : value->u.as_tensor_list.items;
      printf(" [");
      for (size_t k = 0; k < length && k < 16; ++k) {
        if (items[k] == NULL) {
          printf("%sNone", k ? ", " : "");
        } else {
          printf("%sv%td", k ? ", " : "", items[k] - method->values);
        }
      }
      printf("%s]", length > 16 ? ", ..." : "");
      break;
    }
    case ETR_TAG_LIST_DOUBLE:
      printf(" (%zu doubles)", value->u.as_double_list.length);
      break;
    case ETR_TAG_LIST_BOOL:
      printf(" (%zu bools)", value->u.as_bool_list.length);
      break;
    default:
      break;
  }
  printf("\n");
}

static void print_instruction(const etr_method_t *method, uint32_t chain,
                              uint32_t index) {
  const etr_instruction_t *instruction =
      &method->chains[chain].instructions[index];
  printf("  %u:%-4u %-13s", chain, index,
         etr_instruction_kind_name(instruction->kind));
  switch (instruction->kind) {
    case ETR_INSTRUCTION_KERNEL_CALL:
    case ETR_INSTRUCTION_DELEGATE_CALL:
      if (instruction->kind == ETR_INSTRUCTION_KERNEL_CALL) {
        printf(" %s(", method->operators[instruction->callee].name);
      } else {
        printf(" delegate %u '%s'(", instruction->callee,
               method->delegates[instruction->callee].backend_id
                   ? method->delegates[instruction->callee].backend_id
                   : "?");
      }
      for (size_t a = 0; a < instruction->num_args; ++a) {
        printf("%sv%u", a ? ", " : "", instruction->arg_indices[a]);
      }
      printf(")\n");
      return;
    case ETR_INSTRUCTION_MOVE_CALL:
      printf(" v%u -> v%u\n", instruction->operands[0],
             instruction->operands[1]);
      return;
    case ETR_INSTRUCTION_JUMP_FALSE_CALL:
      printf(" if not v%u goto %u\n", instruction->operands[0],
             instruction->operands[1]);
      return;
    case ETR_INSTRUCTION_FREE_CALL:
      printf(" v%u\n", instruction->operands[0]);
      return;
  }
}

int etr_cli_inspect(int argc, char **argv) {
  const char *path = NULL;
  const char *method_name = NULL;
  const char *data_path = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0) {
      fputs(kInspectUsage, stdout);
      return ETR_EXIT_OK;
    }
    if ((strcmp(argv[i], "--method") == 0 || strcmp(argv[i], "--data") == 0) &&
        i + 1 < argc) {
      *(strcmp(argv[i], "--method") == 0 ? &method_name : &data_path) =
          argv[i + 1];
      ++i;
    } else if (argv[i][0] == '-' || path != NULL) {
      fprintf(stderr, "etref inspect: unexpected argument '%s'\n\n%s",
              argv[i], kInspectUsage);
      return ETR_EXIT_USAGE;
    } else {
      path = argv[i];
    }
  }
  if (path == NULL) {
    fprintf(stderr, "etref inspect: missing PROGRAM\n\n%s", kInspectUsage);
    return ETR_EXIT_USAGE;
  }
  static etr_cli_session_t session;
  etr_diag_t diag;
  etr_diag_reset(&diag);
  int code = etr_cli_open(&session, path, data_path, &diag);
  if (code != ETR_EXIT_OK) {
    return code;
  }
  const etr_program_t *program = &session.program;
  printf("%s: %zu bytes, %s extended header, program %llu bytes, "
         "%u segments, %u methods%s\n",
         path, program->size, program->has_extended_header ? "with" : "no",
         (unsigned long long)program->program_size, program->segments.length,
         etr_program_method_count(program),
         session.is_bundle ? " (embedded in a bundled program)" : "");
  for (uint32_t m = 0; m < etr_program_method_count(program); ++m) {
    etr_fb_string_t name;
    if (etr_program_method_name(program, m, &name, &diag) != ETR_OK) {
      code = etr_cli_report(&diag, diag.code);
      break;
    }
    if (method_name != NULL && strcmp(method_name, name.chars) != 0) {
      continue;
    }
    etr_method_t method;
    etr_method_config_t config;
    etr_method_config_init(&config, &session.kernels);
    config.backends = &session.backends;
    config.external_data = data_path != NULL ? &session.data : NULL;
    config.allow_missing = true;
    etr_diag_reset(&diag);
    etr_error_t status =
        etr_method_load(program, name.chars, &config, &method, &diag);
    if (status != ETR_OK) {
      code = etr_cli_report(&diag, status);
      continue;
    }
    printf("\nmethod '%s': %u values, %u inputs, %u outputs, %u operators, "
           "%u delegates, %u chains\n",
           method.name, method.num_values, method.num_inputs,
           method.num_outputs, method.num_operators, method.num_delegates,
           method.num_chains);
    printf("planned buffers:");
    for (uint32_t b = 0; b < method.num_planned_buffers; ++b) {
      printf(" [mem_id %u] %zu bytes", b + 1, method.planned_sizes[b]);
    }
    printf("\ninputs:");
    for (uint32_t i = 0; i < method.num_inputs; ++i) {
      printf(" v%u", method.inputs[i]);
    }
    printf("\noutputs:");
    for (uint32_t i = 0; i < method.num_outputs; ++i) {
      printf(" v%u", method.outputs[i]);
    }
    printf("\nvalues:\n");
    for (uint32_t v = 0; v < method.num_values; ++v) {
      print_value(&method, v);
    }
    printf("instructions:\n");
    for (uint32_t c = 0; c < method.num_chains; ++c) {
      for (uint32_t i = 0; i < method.chains[c].num_instructions; ++i) {
        print_instruction(&method, c, i);
      }
    }
    etr_method_release(&method);
  }
  etr_cli_close(&session);
  return code;
}
