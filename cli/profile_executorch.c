// SPDX-License-Identifier: Apache-2.0
//
// ExecuTorch side by side for `etref profile` (see profile.h): a child
// Python process loads the same .pte with ExecuTorch's runtime and
// enable_etdump=True, executes it warm-up + runs times on the same inputs
// and writes its ETDump; etref then reads that file with its own reader
// (prof/executorch_compare.h). Python is only ever a child process here;
// the C runtime never needs it.
//
// The interpreter: --executorch PATH, else $ETREF_PYTHON, else
// .venv/bin/python under the current directory (where datasets/install.sh
// puts the project's pinned toolchain). ExecuTorch wheels before 1.5 carry
// no event tracer and write no ETDump; the note says so.
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/profile.h"
#include "core/file.h"
#include "core/npy.h"

// argv: program etdump warmup runs method data_path input...
static const char kScript[] =
    "import sys\n"
    "from importlib import metadata\n"
    "program, out, warmup, runs, method, data = sys.argv[1:7]\n"
    "paths = sys.argv[7:]\n"
    "print('executorch', metadata.version('executorch'), flush=True)\n"
    "import numpy as np, torch\n"
    "from executorch.runtime import Runtime\n"
    "kwargs = {'enable_etdump': True, 'debug_buffer_size': 0}\n"
    "if data:\n"
    "    kwargs['data_path'] = data\n"
    "prog = Runtime.get().load_program(program, **kwargs)\n"
    "m = prog.load_method(method)\n"
    "inputs = [torch.from_numpy(np.load(p)) for p in paths]\n"
    "for _ in range(int(warmup) + int(runs)):\n"
    "    m.execute(inputs)\n"
    "prog.write_etdump_result_to_file(out, out + '.debug.bin')\n";

static const char *find_python(const char *choice, char *buffer,
                               size_t capacity) {
  if (choice != NULL && strcmp(choice, "auto") != 0) {
    return choice;
  }
  const char *env = getenv("ETREF_PYTHON");
  if (env != NULL && env[0] != '\0') {
    return env;
  }
  snprintf(buffer, capacity, ".venv/bin/python");
  return access(buffer, X_OK) == 0 ? buffer : NULL;
}

// The last non-empty line of a file (a Python traceback's message).
static void last_line(const char *path, char *line, size_t capacity) {
  line[0] = '\0';
  FILE *file = fopen(path, "r");
  if (file == NULL) {
    return;
  }
  char buffer[1024];
  while (fgets(buffer, sizeof(buffer), file) != NULL) {
    buffer[strcspn(buffer, "\n")] = '\0';
    if (buffer[0] != '\0') {
      snprintf(line, capacity, "%.500s", buffer);
    }
  }
  fclose(file);
}

// The "executorch <version>" line the script prints first.
static void read_version(const char *path, char *version, size_t capacity) {
  snprintf(version, capacity, "?");
  FILE *file = fopen(path, "r");
  if (file == NULL) {
    return;
  }
  char buffer[1024];
  while (fgets(buffer, sizeof(buffer), file) != NULL) {
    if (strncmp(buffer, "executorch ", 11) == 0) {
      buffer[strcspn(buffer, "\n")] = '\0';
      snprintf(version, capacity, "%.60s", buffer + 11);
      break;
    }
  }
  fclose(file);
}

// Runs python -c kScript with `args`, output to `log`. Returns the exit
// status, or -1 when it could not start.
static int run_python(const char *python, char **args, size_t num_args,
                      const char *log) {
  char *argv[80];
  size_t n = 0;
  argv[n++] = (char *)python;
  argv[n++] = (char *)"-c";
  argv[n++] = (char *)kScript;
  for (size_t i = 0; i < num_args && n + 1 < 80; ++i) {
    argv[n++] = args[i];
  }
  argv[n] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t child = fork();
  if (child < 0) {
    return -1;
  }
  if (child == 0) {
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execv(python, argv);
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      return -1;
    }
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void etr_cli_profile_executorch(const etr_cli_executorch_request_t *request,
                                etr_profile_report_t *report) {
  report->has_executorch = false;
  if (request->python != NULL && strcmp(request->python, "off") == 0) {
    snprintf(report->executorch_note, sizeof(report->executorch_note),
             "not run (--executorch off)");
    return;
  }
  char buffer[4096];
  const char *python = find_python(request->python, buffer, sizeof(buffer));
  if (python == NULL || access(python, X_OK) != 0) {
    snprintf(report->executorch_note, sizeof(report->executorch_note),
             "not run: no Python with ExecuTorch found (%.300s; set "
             "ETREF_PYTHON, pass --executorch PYTHON, or run "
             "datasets/install.sh to create .venv)",
             python != NULL ? python : ".venv/bin/python does not exist");
    return;
  }
  char directory[] = "/tmp/etref-profile-XXXXXX";
  if (mkdtemp(directory) == NULL) {
    snprintf(report->executorch_note, sizeof(report->executorch_note),
             "not run: cannot create a temporary directory");
    return;
  }
  // Arguments: program etdump warmup runs method data inputs...
  char etdump[256], log[256], warmup[32], runs[32];
  snprintf(etdump, sizeof(etdump), "%s/executorch.etdp", directory);
  snprintf(log, sizeof(log), "%s/executorch.log", directory);
  snprintf(warmup, sizeof(warmup), "%u", request->warmup);
  snprintf(runs, sizeof(runs), "%u", request->runs);
  static char input_files[ETR_CLI_MAX_INPUTS][256];
  char *args[6 + ETR_CLI_MAX_INPUTS];
  size_t num_args = 0;
  args[num_args++] = (char *)request->program;
  args[num_args++] = etdump;
  args[num_args++] = warmup;
  args[num_args++] = runs;
  args[num_args++] = (char *)request->method;
  args[num_args++] = (char *)(request->data_path != NULL ? request->data_path
                                                         : "");
  bool ok = true;
  if (request->num_input_paths > 0) {
    for (uint32_t i = 0; i < request->num_input_paths; ++i) {
      args[num_args++] = (char *)request->input_paths[i];
    }
  } else {
    for (uint32_t i = 0; i < request->inputs->count && ok; ++i) {
      const etr_evalue_t *value = &request->inputs->values[i];
      if (value->tag != ETR_TAG_TENSOR) {
        snprintf(report->executorch_note, sizeof(report->executorch_note),
                 "not run: input %u is a %s, and only tensor inputs are "
                 "passed to ExecuTorch",
                 i, etr_tag_name(value->tag));
        ok = false;
        break;
      }
      snprintf(input_files[i], sizeof(input_files[i]), "%s/input_%u.npy",
               directory, i);
      etr_diag_t diag;
      etr_diag_reset(&diag);
      if (etr_npy_write_file(input_files[i], value->u.as_tensor, &diag) !=
          ETR_OK) {
        snprintf(report->executorch_note, sizeof(report->executorch_note),
                 "not run: cannot write input %u for ExecuTorch: %.300s", i,
                 diag.message);
        ok = false;
        break;
      }
      args[num_args++] = input_files[i];
    }
  }
  int status = ok ? run_python(python, args, num_args, log) : -2;
  char version[64];
  read_version(log, version, sizeof(version));
  char line[512];
  last_line(log, line, sizeof(line));
  if (ok && status != 0) {
    // ExecuTorch prints its Error code as "error: 0x:<hex>"; etref's codes
    // are numbered as ExecuTorch's, so the name can be given.
    const char *code = strstr(line, "0x:");
    unsigned value = 0;
    char meaning[96] = "";
    if (code != NULL && sscanf(code + 3, "%x", &value) == 1 &&
        etr_error_is_known((int)value)) {
      snprintf(meaning, sizeof(meaning), " (ExecuTorch's Error::%s)",
               etr_error_name((etr_error_t)value));
    }
    snprintf(report->executorch_note, sizeof(report->executorch_note),
             "not run: %.200s (executorch %s) failed with status %d: "
             "%.300s%s",
             python, version, status, line, meaning);
    ok = false;
  }
  void *bytes = NULL;
  size_t size = 0;
  if (ok) {
    etr_diag_t diag;
    etr_diag_reset(&diag);
    if (etr_read_file(etdump, 0, &bytes, &size, &diag) != ETR_OK ||
        size == 0) {
      snprintf(report->executorch_note, sizeof(report->executorch_note),
               "not run: ExecuTorch %s (%.200s) wrote no ETDump: its wheel was "
               "built without the event tracer (ExecuTorch 1.5 wheels have "
               "it; 1.4 ones do not). Its last words: %.300s",
               version, python, line);
      ok = false;
    }
  }
  if (ok) {
    etr_diag_t diag;
    etr_diag_reset(&diag);
    if (etr_executorch_profile_read((const uint8_t *)bytes, size,
                                    request->warmup, &report->executorch,
                                    &diag) != ETR_OK) {
      snprintf(report->executorch_note, sizeof(report->executorch_note),
               "ExecuTorch %s wrote an ETDump etref cannot use: %.400s",
               version, diag.message);
      ok = false;
    }
  }
  if (ok) {
    report->has_executorch = true;
    snprintf(report->executorch_note, sizeof(report->executorch_note),
             "ExecuTorch %s (%.200s) ran the same program on the same inputs "
             "through its Python runtime (the kernels its wheel links, "
             "enable_etdump=True): %u warm-up + %u timed executions; its "
             "ETDump was read by etref's ETDump reader%s%s",
             version, python, request->warmup, request->runs,
             request->keep_etdump != NULL ? " and kept as " : "",
             request->keep_etdump != NULL ? request->keep_etdump : "");
    if (request->keep_etdump != NULL) {
      FILE *file = fopen(request->keep_etdump, "wb");
      if (file != NULL) {
        fwrite(bytes, 1, size, file);
        fclose(file);
      }
    }
  }
  free(bytes);
  // Clean the temporary directory (only files this function created).
  char path[320];
  for (uint32_t i = 0; i < ETR_CLI_MAX_INPUTS; ++i) {
    snprintf(path, sizeof(path), "%s/input_%u.npy", directory, i);
    unlink(path);
  }
  unlink(etdump);
  snprintf(path, sizeof(path), "%s.debug.bin", etdump);
  unlink(path);
  unlink(log);
  rmdir(directory);
}
