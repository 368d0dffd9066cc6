import assert from "node:assert/strict";
import { fileRole, queryNamesRole } from "./file_role.ts";

Deno.test("fileRole: the same path rules for every language", () => {
  assert.equal(fileRole("scripts/release.py"), "script");
  assert.equal(fileRole("tools/gen/main.go"), "script");
  assert.equal(fileRole("src/fixtures/user.rb"), "fixture");
  assert.equal(fileRole("api/v1/service.pb.go"), "generated");
  assert.equal(fileRole("lib/foo_generated.ts"), "generated");
  assert.equal(fileRole("src/router.rs", 12), "definition");
  assert.equal(fileRole("src/constants.txt", 0), "no_definitions");
  assert.equal(fileRole("src/router.rs"), "definition", "unknown symbol count: a definition");
});

Deno.test("queryNamesRole: a query that asks for scripts or fixtures is not lowered for them", () => {
  assert.equal(queryNamesRole("script", ["release", "script"]), true);
  assert.equal(queryNamesRole("fixture", ["user", "fixtures"]), true);
  assert.equal(queryNamesRole("script", ["release", "notes"]), false);
  assert.equal(queryNamesRole("definition", ["script"]), false);
});
