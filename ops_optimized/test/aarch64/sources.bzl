# SPDX-License-Identifier: Apache-2.0
"""c_sources: the C sources and headers behind some cc targets, for a build
outside Bazel's toolchain (the aarch64 cross build of the differential
tests).

An aspect walks `deps` transitively and collects the `srcs`, `hdrs` and
`textual_hdrs` of every target, so the list is exactly what Bazel itself
compiles for those targets (it follows the BUILD files, which
ops_reference/tools/update_registry.py keeps in sync with the tree), minus
the x86-only files (`*_avx2.c`, `*_avx512.c`). `srcs` adds files directly
(the *_neon.c files Bazel does not compile on x86, the tests, the shim).
The rule's outputs are those files (as runfiles) plus `<name>.txt`, the
.c files to compile, one workspace-relative path a line, sorted.
"""

_CSourcesInfo = provider(fields = ["files"])

_X86_ONLY = ("_avx2.c", "_avx512.c")

def _collect_impl(target, ctx):
    direct = []
    for attribute in ("srcs", "hdrs", "textual_hdrs"):
        direct += getattr(ctx.rule.files, attribute, [])
    transitive = [
        dep[_CSourcesInfo].files
        for dep in getattr(ctx.rule.attr, "deps", [])
        if _CSourcesInfo in dep
    ]
    return [_CSourcesInfo(files = depset(direct, transitive = transitive))]

_collect = aspect(implementation = _collect_impl, attr_aspects = ["deps"])

def _c_sources_impl(ctx):
    collected = depset(
        ctx.files.srcs,
        transitive = [dep[_CSourcesInfo].files for dep in ctx.attr.deps],
    )
    files = [
        f
        for f in collected.to_list()
        if f.is_source and (f.extension in ("c", "h")) and
           not f.basename.endswith(_X86_ONLY)
    ]
    sources = sorted([f.short_path for f in files if f.extension == "c"])
    manifest = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(manifest, "\n".join(sources) + "\n")
    return [DefaultInfo(
        files = depset([manifest]),
        runfiles = ctx.runfiles(files = files + [manifest]),
    )]

c_sources = rule(
    implementation = _c_sources_impl,
    attrs = {
        "deps": attr.label_list(aspects = [_collect]),
        "srcs": attr.label_list(allow_files = [".c", ".h"]),
    },
)
