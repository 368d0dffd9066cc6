import assert from "node:assert/strict";
import { LANGUAGE_IDENTITIES } from "../../core/languages.ts";
import { languageById, languageForPath, languageForShebang, LANGUAGES } from "./registry.ts";

Deno.test("every language identity has exactly one extraction spec, in the same order", () => {
  assert.deepEqual(LANGUAGES.map((l) => l.id), LANGUAGE_IDENTITIES.map((l) => l.id));
  for (const l of LANGUAGES) {
    const identity = LANGUAGE_IDENTITIES.find((i) => i.id === l.id)!;
    assert.deepEqual([l.grammar, l.extensions], [identity.grammar, identity.extensions], l.id);
  }
});

Deno.test("specs are found by id, path and #! line", () => {
  assert.equal(languageById("Go")?.id, "go");
  assert.equal(languageForPath("a/b.rs")?.id, "rust");
  assert.equal(languageForShebang("#!/usr/bin/env ruby")?.id, "ruby");
  assert.equal(languageForPath("notes.txt"), undefined);
});
