/**
 * A class's name means the class, not its constructors (Java, C#, C++);
 * asked for with kind `constructor`, the first constructor. A Java file sees
 * the types of its own package (its directory) without an import, and an
 * import names its file below the source folder (`src/main/java`).
 */
import assert from "node:assert/strict";
import { withIndexedTree } from "./helpers/fixture_repo.ts";
import { findReferences } from "../src/query/find_references.ts";
import { findImplementations } from "../src/query/implementations.ts";
import { getSymbolHierarchy } from "../src/query/symbol_hierarchy.ts";

const FILES = {
  "src/main/java/com/acme/store/Store.java":
    "package com.acme.store;\n\npublic interface Store {\n  String get(String key);\n}\n",
  "src/main/java/com/acme/store/MemoryStore.java": `package com.acme.store;

public class MemoryStore implements Store {
  private final int size;

  public MemoryStore() {
    this(16);
  }

  public MemoryStore(int size) {
    this.size = size;
  }

  public String get(String key) {
    return null;
  }
}
`,
  "src/main/java/com/acme/other/Elsewhere.java":
    "package com.acme.other;\n\npublic class Elsewhere implements Store {\n  public String get(String key) {\n    return null;\n  }\n}\n",
  "src/main/java/com/acme/app/Main.java": `package com.acme.app;

import com.acme.store.MemoryStore;

public class Main {
  public static void main(String[] args) {
    MemoryStore store = new MemoryStore();
  }
}
`,
};

Deno.test("java: a class's name means the class, not its constructors; kind constructor means the first one", async () => {
  await withIndexedTree(FILES, (db) => {
    const h = getSymbolHierarchy(db, { symbol_name: "MemoryStore" });
    assert.equal(h.symbol.kind, "class");
    const refs = findReferences(db, {
      symbol_name: "MemoryStore",
      path: "src/main/java/com/acme/store/MemoryStore.java",
    });
    assert.equal(refs.symbol.kind, "class");
    const ctor = findReferences(db, { symbol_name: "MemoryStore", kind: "constructor" });
    assert.deepEqual([ctor.symbol.kind, ctor.symbol.line_start], ["constructor", 6]);
  });
});

Deno.test("java: a type of the file's own package is seen without an import; another package's is not", async () => {
  await withIndexedTree(FILES, (db) => {
    const impls = findImplementations(db, { symbol_name: "Store", include_candidates: true });
    const by = new Map(impls.implementations.map((i) => [i.symbol.qualified_name, i.resolution]));
    assert.equal(by.get("com.acme.store.MemoryStore"), "import");
    // `Elsewhere` names a `Store` it neither imports nor shares a package with: only the name matches.
    assert.equal(by.get("com.acme.other.Elsewhere"), "candidate");
    // `import com.acme.store.MemoryStore` names the file below the source folder (src/main/java).
    const refs = findReferences(db, {
      symbol_name: "MemoryStore",
      path: "src/main/java/com/acme/store/MemoryStore.java",
    });
    const fromMain = (refs.references ?? []).filter((r) => r.path === "src/main/java/com/acme/app/Main.java");
    assert.ok(fromMain.length > 0, JSON.stringify(refs));
    assert.ok(fromMain.every((r) => r.resolution === "import"), JSON.stringify(fromMain));
  });
});
