// SPDX-License-Identifier: Apache-2.0
//
// Test fixture: a shared library without etref's delegate entry symbol.
int etref_fixture_something_else(void);
int etref_fixture_something_else(void) { return 42; }
