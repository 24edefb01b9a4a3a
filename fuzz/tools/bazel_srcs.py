#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Lists the C sources (and their per-target copts) of Bazel cc_library
# targets and everything they depend on, by evaluating the repository's
# BUILD files with stub rules. fuzz/oss_fuzz_build.sh compiles etref with
# clang (libFuzzer, AFL++, coverage) outside Bazel; reading the lists from
# the BUILD files keeps one source of truth, so a kernel added to
# ops_reference/BUILD is fuzzed without touching fuzz/.
#
# Usage: bazel_srcs.py REPO_ROOT //core //planner ...
# Output: one line per source file, "path<TAB>copt copt ...", in dependency
# order (each file once). Headers are not listed (they are found through
# -I REPO_ROOT). Fails (exit 2) on a label it cannot resolve.
import os
import sys


class _Package:
    def __init__(self, root, package):
        self.root = root
        self.package = package
        self.rules = {}


def _load_package(root, package, cache):
    if package in cache:
        return cache[package]
    build = os.path.join(root, package, "BUILD")
    if not os.path.exists(build):
        build = os.path.join(root, package, "BUILD.bazel")
    pkg = _Package(root, package)

    def rule(kind):
        def record(name, **kwargs):
            kwargs["kind"] = kind
            pkg.rules[name] = kwargs
        return record

    def ignore(*args, **kwargs):
        return None

    def glob(include, exclude=None, **kwargs):
        return []  # only data uses glob here; sources are listed explicitly

    env = {
        "cc_library": rule("cc_library"),
        "cc_binary": rule("cc_binary"),
        "cc_test": rule("cc_test"),
        "sh_test": rule("sh_test"),
        "sh_binary": rule("sh_binary"),
        "filegroup": rule("filegroup"),
        "alias": rule("alias"),
        "exports_files": ignore,
        "package": ignore,
        "load": ignore,
        "licenses": ignore,
        "glob": glob,
        "select": lambda d: d.get("//conditions:default", []),
    }
    with open(build, encoding="utf-8") as f:
        code = compile(f.read(), build, "exec")
    exec(code, env)  # noqa: S102 - the repository's own BUILD files
    cache[package] = pkg
    return pkg


def _split(label, current):
    if label.startswith("//"):
        body = label[2:]
        if ":" in body:
            package, name = body.split(":", 1)
        else:
            package, name = body, os.path.basename(body)
    elif label.startswith(":"):
        package, name = current, label[1:]
    else:
        package, name = current, label
    return package, name


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__ or "usage: bazel_srcs.py ROOT LABEL...\n")
        return 2
    root = argv[1]
    cache = {}
    seen_targets = set()
    seen_files = set()
    lines = []

    def visit(label, current):
        package, name = _split(label, current)
        key = (package, name)
        if key in seen_targets:
            return
        seen_targets.add(key)
        pkg = _load_package(root, package, cache)
        if name not in pkg.rules:
            raise SystemExit("bazel_srcs.py: no target %s in %s" % (name, package))
        rule = pkg.rules[name]
        if rule["kind"] == "alias":
            visit(rule["actual"], package)
            return
        for dep in rule.get("deps", []):
            visit(dep, package)
        copts = " ".join(rule.get("copts", []))
        for src in rule.get("srcs", []):
            if not src.endswith(".c"):
                continue
            path = os.path.join(package, src) if package else src
            if path not in seen_files:
                seen_files.add(path)
                lines.append("%s\t%s" % (path, copts))

    for label in argv[2:]:
        visit(label, "")
    sys.stdout.write("".join(line + "\n" for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
