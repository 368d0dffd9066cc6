import assert from "node:assert/strict";
import { isTestPath } from "./test_paths.ts";

Deno.test("isTestPath: test directories, test file names and test classes", () => {
  for (
    const p of [
      "tests/a.py",
      "pkg/testdata/x.json",
      "src/__tests__/a.ts",
      "foo_test.go",
      "test_foo.py",
      "a.spec.ts",
      "a.test.jsx",
      "src/FooTest.java",
      "Src/BarTests.cs",
      "spec/models/user_spec.rb",
    ]
  ) assert.equal(isTestPath(p), true, p);
});

Deno.test("isTestPath: ordinary code is not a test, whatever its name contains", () => {
  for (const p of ["src/latest.go", "contest/main.py", "src/attestation.ts", "lib/Testimony.java", "main.rs"]) {
    assert.equal(isTestPath(p), false, p);
  }
});
