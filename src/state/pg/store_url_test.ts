import assert from "node:assert/strict";
import { checkStoreUrl, redactedStoreUrl, storeUrlFor } from "./store_url.ts";
import { CruxeError } from "../../core/errors.ts";

/** The CruxeError `fn` throws (fails when it throws nothing or something else). */
function thrown(fn: () => unknown): CruxeError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof CruxeError, String(e));
    return e;
  }
  assert.fail("nothing thrown");
}

Deno.test("checkStoreUrl accepts postgres URLs and refuses anything else as invalid_input", () => {
  assert.equal(checkStoreUrl("postgres://u@h:5432/db"), "postgres://u@h:5432/db");
  assert.equal(checkStoreUrl("postgresql://h/db"), "postgresql://h/db");
  for (const bad of ["sqlite:///x", "/tmp/x", "postgres://", "http://h/db"]) {
    assert.equal(thrown(() => checkStoreUrl(bad)).code, "invalid_input", bad);
  }
});

Deno.test("a store URL's password never reaches a message", () => {
  assert.equal(redactedStoreUrl("postgres://u:secret@h/db"), "postgres://u:***@h/db");
  assert.equal(thrown(() => checkStoreUrl("mysql://u:secret@h/db")).message.includes("secret"), false);
});

Deno.test("storeUrlFor: the flag wins over the config; neither is the SQLite store", () => {
  assert.equal(storeUrlFor(undefined, null), null);
  assert.equal(storeUrlFor("postgres://a/x", "postgres://b/y"), "postgres://a/x");
  assert.equal(storeUrlFor(undefined, "postgres://b/y"), "postgres://b/y");
  assert.equal(thrown(() => storeUrlFor(undefined, "nope")).data.field, "config key store");
});
