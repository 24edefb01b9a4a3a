// SPDX-License-Identifier: Apache-2.0
//
// Load-time fusion (fuse.h): counts every value's references once, then
// folds constants (fuse_fold.c), fuses convolution groups (fuse_conv.c),
// elementwise chains (fuse_chain.c), prunes unread max-pool indices
// (fuse_fold.c) and packs the constant weights of the convolutions and
// matrix products left unfused (prepack.c).
#include "ops_optimized/fuse/fuse.h"

#include <stdlib.h>

#include "ops_optimized/fuse/fuse_graph.h"

etr_error_t etr_opt_fuse_method(etr_method_t *method,
                                etr_fusion_stats_t *stats,
                                etr_diag_t *diag) {
  etr_fusion_stats_t local = {0};
  if (stats == NULL) {
    stats = &local;
  }
  *stats = (etr_fusion_stats_t){0};
  if (method->config.variant != ETR_KERNELS_OPTIMIZED ||
      method->num_values == 0) {
    return ETR_OK;
  }
  uint32_t *uses = calloc(method->num_values, sizeof(*uses));
  if (uses == NULL) {
    return ETR_FAIL(diag, ETR_ERR_MEMORY_ALLOCATION_FAILED,
                    "fusion analysis of method '%s'", method->name);
  }
  etr_fuse_count_uses(method, uses);
  stats->folded = etr_fuse_fold_constants(method, uses);
  etr_error_t status = etr_fuse_conv_groups(method, uses, stats, diag);
  if (status == ETR_OK) {
    status = etr_fuse_elementwise_chains(method, uses, stats, diag);
  }
  if (status == ETR_OK) {
    stats->pruned = etr_fuse_prune_indices(method, uses);
  }
  free(uses);
  if (status == ETR_OK) {  // what was left unfused
    stats->prepacked += etr_opt_prepack_method(method);
  }
  return status;
}
