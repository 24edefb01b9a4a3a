// SPDX-License-Identifier: Apache-2.0
//
// The `etref` command-line tool: one binary, one subcommand per job.
//   etref run PROGRAM ...      load, run a .pte/.bpte and print outputs
//   etref verify PROGRAM ...   prove a program safe, or list what is wrong
//   etref plan PROGRAM...      compare memory plans (and write a report)
//   etref inspect PROGRAM ...  print values and instructions
//   etref profile PROGRAM ...  per-op profile, report, ETDump
//   etref compare PROGRAM ...  judge a candidate against the reference
// See cli.h for the exit codes.
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

static const char kUsage[] =
    "usage: etref <command> [options]\n"
    "\n"
    "commands:\n"
    "  run PROGRAM      run a .pte or .bpte program and print its outputs and\n"
    "                   a per-operator timing table (etref run --help)\n"
    "  verify PROGRAM   prove the program safe to run, or list what is wrong\n"
    "  plan PROGRAM...  compare memory plans: ExecuTorch's, etref's, bound\n"
    "  inspect PROGRAM  print the program's values and instructions\n"
    "  profile PROGRAM  per-op profile: timings with noise, roofline,\n"
    "                   counters, memory, reference vs optimized vs\n"
    "                   ExecuTorch; HTML/Markdown report, ETDump, CSV, JSON\n"
    "                   (etref profile --help)\n"
    "  compare PROGRAM  correctness oracle: judge a candidate (optimized\n"
    "                   kernels, a delegate library, .npy outputs, an\n"
    "                   ETDump) against the reference kernels op by op\n"
    "                   (etref compare --help)\n"
    "  help          print this message\n"
    "\n"
    "exit codes: 0 ok, 1 usage error, 2 invalid or unsupported program or\n"
    "input, 3 numerical check failed\n";

int main(int argc, char **argv) {
  // Under `bazel run` the tool starts in its runfiles tree; paths on the
  // command line are meant relative to where the user typed it.
  const char *invoked_from = getenv("BUILD_WORKING_DIRECTORY");
  if (invoked_from != NULL && chdir(invoked_from) != 0) {
    fprintf(stderr, "etref: cannot enter %s\n", invoked_from);
    return ETR_EXIT_USAGE;
  }
  if (argc < 2) {
    fputs(kUsage, stderr);
    return ETR_EXIT_USAGE;
  }
  const char *command = argv[1];
  if (strcmp(command, "run") == 0) {
    return etr_cli_run(argc - 1, argv + 1);
  }
  if (strcmp(command, "verify") == 0) {
    return etr_cli_verify_command(argc - 1, argv + 1);
  }
  if (strcmp(command, "plan") == 0) {
    return etr_cli_plan(argc - 1, argv + 1);
  }
  if (strcmp(command, "inspect") == 0) {
    return etr_cli_inspect(argc - 1, argv + 1);
  }
  if (strcmp(command, "profile") == 0) {
    return etr_cli_profile(argc - 1, argv + 1);
  }
  if (strcmp(command, "compare") == 0) {
    return etr_cli_compare(argc - 1, argv + 1);
  }
  if (strcmp(command, "help") == 0 || strcmp(command, "--help") == 0 ||
      strcmp(command, "-h") == 0) {
    fputs(kUsage, stdout);
    return ETR_EXIT_OK;
  }
  fprintf(stderr, "etref: unknown command '%s'\n\n%s", command, kUsage);
  return ETR_EXIT_USAGE;
}
