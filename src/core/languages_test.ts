import assert from "node:assert/strict";
import {
  LANGUAGE_IDENTITIES,
  languageIdentity,
  languageIdForPath,
  languageIdForShebang,
  languageIds,
  textLanguageForPath,
  textLanguageIds,
} from "./languages.ts";

Deno.test("a path selects its language by special file name, then by extension (case-insensitive)", () => {
  assert.equal(languageIdForPath("src/main.go"), "go");
  assert.equal(languageIdForPath("web/App.TSX"), "tsx");
  assert.equal(languageIdForPath("Rakefile"), "ruby");
  assert.equal(languageIdForPath("home/.bashrc"), "bash");
  assert.equal(languageIdForPath(".gitignore"), undefined);
  assert.equal(languageIdForPath("README"), undefined);
});

Deno.test("a #! line selects its interpreter's language, through env and version suffixes", () => {
  assert.equal(languageIdForShebang("#!/usr/bin/env python3"), "python");
  assert.equal(languageIdForShebang("#!/bin/bash -e"), "bash");
  assert.equal(languageIdForShebang("#! /usr/bin/node"), "javascript");
  assert.equal(languageIdForShebang("#!/usr/bin/env perl"), undefined);
  assert.equal(languageIdForShebang("echo hi"), undefined);
});

Deno.test("identities are unique and complete; text-only languages never shadow a parsed one", () => {
  const ids = languageIds();
  assert.equal(new Set(ids).size, ids.length);
  const exts = LANGUAGE_IDENTITIES.flatMap((l) => l.extensions);
  assert.equal(new Set(exts).size, exts.length, "an extension selects one language");
  for (const e of exts) assert.equal(textLanguageForPath("a" + e), undefined, e);
  assert.equal(textLanguageForPath("lib/x.kt"), "kotlin");
  assert.ok(textLanguageIds().includes("kotlin"));
  assert.equal(languageIdentity("go").grammar, "tree-sitter-go.wasm");
  assert.throws(() => languageIdentity("cobol"));
});
