/**
 * A name that is a type and a field in one file: find_implementations asks
 * about the type; every tool takes a Go embedded field's name (its type's)
 * for the type, and still asks about a field merely named like it. A Go
 * struct that embeds the interface, or a type implementing it, implements it.
 */
import assert from "node:assert/strict";
import { withIndexedTree } from "./helpers/fixture_repo.ts";
import { findImplementations } from "../src/query/implementations.ts";
import { findReferences } from "../src/query/find_references.ts";
import { getSymbolHierarchy } from "../src/query/symbol_hierarchy.ts";
import { CruxeError } from "../src/core/errors.ts";

const IO = `package io2

type Reader interface {
	Read(p []byte) (int, error)
}

type nopCloser struct {
	Reader
}

type Disk struct{}

func (d *Disk) Read(p []byte) (int, error) { return 0, nil }

type wrap struct {
	*Disk
	n int
}

type notReader struct {
	Disk int
}
`;

Deno.test("find_implementations: a name that is a type and a field in one file means the type", async () => {
  await withIndexedTree({ "io2/io.go": IO }, (db) => {
    const r = findImplementations(db, { symbol_name: "Reader", path: "io2/io.go" });
    assert.equal(r.symbol.kind, "interface");
    // Disk declares Read; nopCloser embeds the interface, wrap a *Disk: both get Read promoted.
    // notReader has a field named Disk, not an embedded one.
    assert.deepEqual(r.implementations.map((x) => x.symbol.qualified_name).sort(), [
      "io2.Disk",
      "io2.nopCloser",
      "io2.wrap",
    ]);
    // An embedded field is named after its type: every tool takes the name for the type.
    assert.equal(getSymbolHierarchy(db, { symbol_name: "Reader", path: "io2/io.go" }).symbol.kind, "interface");
    // A field that is only named like a type (`Disk int`) is another definition: the tools ask which is meant.
    assert.throws(
      () => findReferences(db, { symbol_name: "Disk", path: "io2/io.go" }),
      (e: unknown) => e instanceof CruxeError && e.code === "ambiguous_symbol",
    );
    // find_implementations answers about types only: there the type is meant.
    assert.equal(findImplementations(db, { symbol_name: "Disk", path: "io2/io.go" }).symbol.kind, "struct");
  });
});
