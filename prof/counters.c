// SPDX-License-Identifier: Apache-2.0
//
// Hardware counters through PAPI (dlopen) or perf_event_open (see
// counters.h). Everything that can go wrong is turned into words in
// `reason`; nothing here aborts or prints.
#define _GNU_SOURCE
#include "prof/counters.h"

#include <dlfcn.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const kCounterNames[ETR_PROF_MAX_COUNTERS] = {
    "cycles", "instructions", "cache-misses", "branch-misses"};

// Appends to the reason string (always NUL-terminated, truncated if long).
static void note(etr_counters_t *counters, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

static void note(etr_counters_t *counters, const char *format, ...) {
  size_t used = strlen(counters->reason);
  if (used + 1 >= sizeof(counters->reason)) {
    return;
  }
  if (used > 0 && used + 3 < sizeof(counters->reason)) {
    memcpy(counters->reason + used, "; ", 3);
    used += 2;
  }
  va_list args;
  va_start(args, format);
  vsnprintf(counters->reason + used, sizeof(counters->reason) - used, format,
            args);
  va_end(args);
}

const char *etr_counter_source_name(etr_counter_source_t source) {
  switch (source) {
    case ETR_COUNTERS_PAPI:
      return "PAPI";
    case ETR_COUNTERS_PERF_EVENT:
      return "perf_event";
    default:
      return "none";
  }
}

// ---- PAPI, loaded at run time -------------------------------------------

// The leading fields of PAPI_component_info_t as papi.h 7.x declares them
// (name[128], short_name[64], description[128], version[64],
// support_version[64], kernel_version[64], disabled_reason[1024],
// disabled). Only read after PAPI_library_init accepted a 7.x version.
typedef struct papi_component_prefix {
  char name[128];
  char short_name[64];
  char description[128];
  char version[64];
  char support_version[64];
  char kernel_version[64];
  char disabled_reason[1024];
  int disabled;
} papi_component_prefix_t;

#define PAPI_OK 0
#define PAPI_NULL (-1)

// PAPI_VER_CURRENT for the releases this loader knows (major.minor << 16).
static const int kPapiVersions[] = {0x07020000, 0x07010000, 0x07000000};

// Preset events per counter slot, first available wins.
static const char *const kPapiEvents[ETR_PROF_MAX_COUNTERS][3] = {
    {"PAPI_TOT_CYC", NULL, NULL},
    {"PAPI_TOT_INS", NULL, NULL},
    {"PAPI_L3_TCM", "PAPI_L2_TCM", "PAPI_L1_DCM"},
    {"PAPI_BR_MSP", NULL, NULL},
};

static bool open_papi(etr_counters_t *counters) {
  void *library = dlopen("libpapi.so.7.0", RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    library = dlopen("libpapi.so", RTLD_NOW | RTLD_LOCAL);
  }
  if (library == NULL) {
    const char *error = dlerror();
    note(counters, "PAPI: not installed (dlopen libpapi.so.7.0: %s)",
         error != NULL ? error : "not found");
    return false;
  }
  int (*library_init)(int) =
      (int (*)(int))dlsym(library, "PAPI_library_init");
  int (*create_eventset)(int *) =
      (int (*)(int *))dlsym(library, "PAPI_create_eventset");
  int (*add_named_event)(int, const char *) =
      (int (*)(int, const char *))dlsym(library, "PAPI_add_named_event");
  int (*start)(int) = (int (*)(int))dlsym(library, "PAPI_start");
  char *(*strerror_fn)(int) = (char *(*)(int))dlsym(library, "PAPI_strerror");
  const void *(*component_info)(int) =
      (const void *(*)(int))dlsym(library, "PAPI_get_component_info");
  counters->papi_read =
      (int (*)(int, long long *))dlsym(library, "PAPI_read");
  counters->papi_stop =
      (int (*)(int, long long *))dlsym(library, "PAPI_stop");
  counters->papi_cleanup_eventset =
      (int (*)(int))dlsym(library, "PAPI_cleanup_eventset");
  counters->papi_destroy_eventset =
      (int (*)(int *))dlsym(library, "PAPI_destroy_eventset");
  if (library_init == NULL || create_eventset == NULL ||
      add_named_event == NULL || start == NULL || strerror_fn == NULL ||
      counters->papi_read == NULL || counters->papi_stop == NULL) {
    note(counters, "PAPI: libpapi lacks the expected functions");
    return false;
  }
  int version = -1;
  for (size_t i = 0; i < sizeof(kPapiVersions) / sizeof(kPapiVersions[0]);
       ++i) {
    version = library_init(kPapiVersions[i]);
    if (version == kPapiVersions[i]) {
      break;
    }
  }
  if (version < 0) {
    note(counters, "PAPI: PAPI_library_init failed for PAPI 7.0-7.2 (%s)",
         strerror_fn(version) != NULL ? strerror_fn(version) : "?");
    return false;
  }
  // The perf_event component (index 0 on Linux) says why it is disabled.
  if (component_info != NULL) {
    const papi_component_prefix_t *info =
        (const papi_component_prefix_t *)component_info(0);
    if (info != NULL && info->disabled != 0) {
      note(counters, "PAPI %d.%d: component %.32s disabled: %.300s",
           version >> 24, (version >> 16) & 0xff, info->name,
           info->disabled_reason);
    }
  }
  int event_set = PAPI_NULL;
  int status = create_eventset(&event_set);
  if (status != PAPI_OK) {
    note(counters, "PAPI: PAPI_create_eventset: %s", strerror_fn(status));
    return false;
  }
  counters->papi_event_set = event_set;
  uint32_t added = 0;
  for (int slot = 0; slot < ETR_PROF_MAX_COUNTERS; ++slot) {
    int last = PAPI_OK;
    const char *tried = kPapiEvents[slot][0];
    for (int k = 0; k < 3 && kPapiEvents[slot][k] != NULL; ++k) {
      last = add_named_event(event_set, kPapiEvents[slot][k]);
      if (last == PAPI_OK) {
        counters->names[added++] = kCounterNames[slot];
        break;
      }
    }
    if (last != PAPI_OK) {
      note(counters, "PAPI: cannot add %s (%s)", tried, strerror_fn(last));
    }
  }
  if (added == 0 || (status = start(event_set)) != PAPI_OK) {
    if (added != 0) {
      note(counters, "PAPI: PAPI_start: %s", strerror_fn(status));
    }
    if (counters->papi_cleanup_eventset != NULL) {
      counters->papi_cleanup_eventset(event_set);
    }
    if (counters->papi_destroy_eventset != NULL) {
      counters->papi_destroy_eventset(&event_set);
    }
    counters->papi_event_set = PAPI_NULL;
    return false;
  }
  counters->papi_library = library;
  counters->num_counters = added;
  counters->source = ETR_COUNTERS_PAPI;
  return true;
}

// ---- perf_event_open ----------------------------------------------------

static const uint64_t kPerfEvents[ETR_PROF_MAX_COUNTERS] = {
    PERF_COUNT_HW_CPU_CYCLES, PERF_COUNT_HW_INSTRUCTIONS,
    PERF_COUNT_HW_CACHE_MISSES, PERF_COUNT_HW_BRANCH_MISSES};

static int read_paranoid(void) {
  FILE *file = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
  int value = 99;
  if (file != NULL) {
    if (fscanf(file, "%d", &value) != 1) {
      value = 99;
    }
    fclose(file);
  }
  return value;
}

static bool open_perf(etr_counters_t *counters) {
  uint32_t opened = 0;
  int leader = -1;
  for (int slot = 0; slot < ETR_PROF_MAX_COUNTERS; ++slot) {
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof(attr));
    attr.type = PERF_TYPE_HARDWARE;
    attr.size = sizeof(attr);
    attr.config = kPerfEvents[slot];
    attr.disabled = leader < 0;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
                       PERF_FORMAT_TOTAL_TIME_ENABLED |
                       PERF_FORMAT_TOTAL_TIME_RUNNING;
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, leader, 0);
    if (fd < 0) {
      int error = errno;
      if (error == EACCES || error == EPERM) {
        note(counters,
             "perf_event: %s: %s (kernel.perf_event_paranoid = %d)",
             kCounterNames[slot], strerror(error), read_paranoid());
      } else if (error == ENOENT || error == EOPNOTSUPP || error == ENODEV) {
        note(counters, "perf_event: %s: not supported by this CPU or VM (%s)",
             kCounterNames[slot], strerror(error));
      } else {
        note(counters, "perf_event: %s: %s", kCounterNames[slot],
             strerror(error));
      }
      continue;
    }
    uint64_t id = 0;
    if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0) {
      close(fd);
      continue;
    }
    if (leader < 0) {
      leader = fd;
    }
    counters->fds[opened] = fd;
    counters->ids[opened] = id;
    counters->names[opened] = kCounterNames[slot];
    ++opened;
  }
  if (opened == 0) {
    return false;
  }
  counters->num_counters = opened;
  counters->source = ETR_COUNTERS_PERF_EVENT;
  ioctl(leader, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
  if (ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0) {
    note(counters, "perf_event: enabling the group: %s", strerror(errno));
    etr_counters_close(counters);
    return false;
  }
  uint64_t probe[ETR_PROF_MAX_COUNTERS];
  if (!etr_counters_read(counters, probe)) {
    note(counters,
         "perf_event: the counter group is never scheduled (no free "
         "hardware counters?)");
    etr_counters_close(counters);
    return false;
  }
  return true;
}

etr_counter_source_t etr_counters_open(etr_counters_t *counters,
                                       etr_counter_request_t request) {
  memset(counters, 0, sizeof(*counters));
  for (int i = 0; i < ETR_PROF_MAX_COUNTERS; ++i) {
    counters->fds[i] = -1;
  }
  counters->papi_event_set = PAPI_NULL;
  if (request == ETR_COUNTERS_OFF) {
    note(counters, "hardware counters not requested");
    return ETR_COUNTERS_NONE;
  }
  if (request != ETR_COUNTERS_ONLY_PERF && open_papi(counters)) {
    return counters->source;
  }
  if (request != ETR_COUNTERS_ONLY_PAPI && open_perf(counters)) {
    return counters->source;
  }
  counters->source = ETR_COUNTERS_NONE;
  counters->num_counters = 0;
  return ETR_COUNTERS_NONE;
}

bool etr_counters_read(etr_counters_t *counters,
                       uint64_t values[ETR_PROF_MAX_COUNTERS]) {
  if (counters->source == ETR_COUNTERS_PAPI) {
    long long raw[ETR_PROF_MAX_COUNTERS] = {0};
    if (counters->papi_read(counters->papi_event_set, raw) != PAPI_OK) {
      return false;
    }
    for (uint32_t i = 0; i < counters->num_counters; ++i) {
      values[i] = (uint64_t)raw[i];
    }
    return true;
  }
  if (counters->source == ETR_COUNTERS_PERF_EVENT) {
    // nr, time_enabled, time_running, then {value, id} per counter.
    uint64_t buffer[3 + 2 * ETR_PROF_MAX_COUNTERS];
    ssize_t got = read(counters->fds[0], buffer, sizeof(buffer));
    if (got < (ssize_t)(3 * sizeof(uint64_t)) || buffer[2] == 0) {
      return false;  // failed, or the group was never on a counter
    }
    uint64_t entries = buffer[0];
    if (entries > ETR_PROF_MAX_COUNTERS ||
        (size_t)got < (3 + 2 * entries) * sizeof(uint64_t)) {
      return false;
    }
    for (uint32_t i = 0; i < counters->num_counters; ++i) {
      values[i] = 0;
      for (uint64_t k = 0; k < entries; ++k) {
        if (buffer[4 + 2 * k] == counters->ids[i]) {
          values[i] = buffer[3 + 2 * k];
        }
      }
    }
    return true;
  }
  return false;
}

void etr_counters_close(etr_counters_t *counters) {
  if (counters->source == ETR_COUNTERS_PAPI) {
    long long ignored[ETR_PROF_MAX_COUNTERS];
    counters->papi_stop(counters->papi_event_set, ignored);
    if (counters->papi_cleanup_eventset != NULL) {
      counters->papi_cleanup_eventset(counters->papi_event_set);
    }
    if (counters->papi_destroy_eventset != NULL) {
      counters->papi_destroy_eventset(&counters->papi_event_set);
    }
    // libpapi stays loaded: PAPI keeps process-wide state that outlives
    // an event set, and unloading it under a running process is unsafe.
  }
  // Only descriptors this module opened (a zeroed struct has fds of 0).
  for (int i = 0; i < ETR_PROF_MAX_COUNTERS &&
                  counters->source == ETR_COUNTERS_PERF_EVENT;
       ++i) {
    if (counters->fds[i] >= 0) {
      close(counters->fds[i]);
      counters->fds[i] = -1;
    }
  }
  counters->source = ETR_COUNTERS_NONE;
  counters->num_counters = 0;
}
