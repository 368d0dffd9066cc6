/**
 * Kconfig entries are symbols: `config FOO` is found as `FOO` and as
 * `CONFIG_FOO`, the name C, make and `.config` files give it, by
 * locate_symbol and by every tool that takes a symbol name; its help text is
 * its documentation, `rsource` imports the file beside it, and a symbol named
 * in an expression is a use of it wherever it is.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { withIndexedTree } from "./helpers/fixture_repo.ts";
import { locateSymbol } from "../src/query/locate_symbol.ts";
import { searchCode } from "../src/query/search_code.ts";
import { getSymbolHierarchy } from "../src/query/symbol_hierarchy.ts";
import { findRelatedSymbols } from "../src/query/related_symbols.ts";
import { getFileOutline } from "../src/query/file_outline.ts";
import { CruxeError } from "../src/core/errors.ts";
import { symbolsByName } from "../src/state/read/symbols.ts";
import { findReferences } from "../src/query/find_references.ts";
import { parseAndExtract } from "../src/index/parser.ts";

const FIXTURE = new URL("../fixtures/repos/kconfig_basic/", import.meta.url).pathname;

function fixtureFiles(dir = FIXTURE, out: Record<string, string> = {}): Record<string, string> {
  for (const e of Deno.readDirSync(dir)) {
    const p = join(dir, e.name);
    if (e.isDirectory) fixtureFiles(p, out);
    else out[relative(FIXTURE, p)] = Deno.readTextFileSync(p);
  }
  return out;
}

Deno.test("kconfig: CONFIG_FOO, as C spells it, locates `config FOO` exactly", async () => {
  await withIndexedTree(fixtureFiles(), (db) => {
    for (const name of ["CONFIG_SERIAL_CONSOLE", "SERIAL_CONSOLE"]) {
      const top = locateSymbol(db, { name }).results[0];
      assert.equal(top.path, "drivers/serial/Kconfig", name);
      assert.equal(top.line_start, 4, name);
      assert.equal(top.match_tier, "exact", name);
      assert.equal(top.qualified_name, "CONFIG_SERIAL_CONSOLE", name);
      assert.equal(top.signature, 'config SERIAL_CONSOLE: bool "Console on a serial port"', name);
    }
    assert.equal(locateSymbol(db, { name: "config_serial_console" }).results[0].match_tier, "case_insensitive");
    // search_code ranks the entry first for the spelling C uses.
    const hit = searchCode(db, { query: "CONFIG_SERIAL_CONSOLE" }).results[0];
    assert.deepEqual([hit.path, hit.line_start], ["drivers/serial/Kconfig", 4]);
    // A Kconfig.* file is Kconfig too.
    assert.equal(locateSymbol(db, { name: "CONFIG_SERIAL_DEBUG" }).results[0].path, "drivers/serial/Kconfig.debug");
    // The signature and the help text are the source's own text, `$` and all.
    assert.equal(symbolsByName(db, "SERIAL_DEBUG")[0].doc, "Checks every transfer, at US$ 1 each.");
    assert.equal(
      locateSymbol(db, { name: "SERIAL_TRACE" }).results[0].signature,
      'config SERIAL_TRACE: bool "Trace transfers, in US$"',
    );
    // The prefix names Kconfig symbols only: a C definition of the rest of the name is not one.
    assert.throws(
      () => locateSymbol(db, { name: "CONFIG_SERIAL_CONSOLE", language: "c" }),
      (e: unknown) => e instanceof CruxeError && e.code === "symbol_not_found",
    );
    assert.throws(
      () => locateSymbol(db, { name: "CONFIG_serial_core_register" }),
      (e: unknown) => e instanceof CruxeError && e.code === "symbol_not_found",
    );
  });
});

Deno.test("kconfig: tools that take a symbol name resolve CONFIG_FOO; help text is the doc; rsource is beside the file", async () => {
  await withIndexedTree(fixtureFiles(), (db) => {
    const h = getSymbolHierarchy(db, { symbol_name: "CONFIG_SERIAL_CONSOLE" });
    assert.equal(h.symbol.path, "drivers/serial/Kconfig");
    assert.equal(h.symbol.name, "SERIAL_CONSOLE");
    // `CONFIG_` is how other code spells the name, not a module holding it.
    assert.deepEqual(h.containment, []);
    // A C macro of the prefixed name is another definition of it: the tools ask which one is meant.
    assert.throws(
      () => getSymbolHierarchy(db, { symbol_name: "CONFIG_MODULES" }),
      (e: unknown) =>
        e instanceof CruxeError && e.code === "ambiguous_symbol" &&
        JSON.stringify((e.data as { candidates: { path: string }[] }).candidates.map((c) => c.path)) ===
          JSON.stringify(["Kconfig", "tools/harness.h"]),
    );
    const related = findRelatedSymbols(db, { symbol_name: "CONFIG_SERIAL_CORE" });
    const imports = new Map(
      related.related.filter((r) => r.relation === "imports").map((r) => [r.name, r.resolved_path ?? null]),
    );
    assert.equal(imports.get("./Kconfig.debug"), "drivers/serial/Kconfig.debug");
    // A path through a make variable: its file's name alone is any file of that name, not this one.
    assert.equal(imports.get("arch/$(SRCARCH)/Kconfig"), null);
    // A file the tree lacks is not any other file of its name.
    const top = new Map(
      findRelatedSymbols(db, { symbol_name: "CONFIG_MODULES", path: "Kconfig" }).related.filter((r) =>
        r.relation === "imports"
      )
        .map((r) => [r.name, r.resolved_path ?? null]),
    );
    assert.equal(top.get("drivers/Kconfig"), "drivers/Kconfig");
    assert.equal(top.get("drivers/missing/Kconfig"), null);
    const outline = getFileOutline(db, { path: "Kconfig" });
    const modules = outline.symbols.find((s) => s.name === "MODULES");
    assert.ok(modules, JSON.stringify(outline.symbols.map((s) => s.name)));
    assert.deepEqual([modules.line_start, modules.line_end], [4, 9]);
    assert.equal(
      symbolsByName(db, "MODULES")[0].doc,
      "Kernel modules are small pieces of compiled code which can\nbe inserted in the running kernel.",
    );
  });
});

Deno.test("kconfig: a symbol named in an expression is a use of it in every Kconfig file; values and definitions are not", async () => {
  const files = fixtureFiles();
  const top = await parseAndExtract("kconfig", "Kconfig", files["Kconfig"]);
  // `select NLATTR`, `if NET`, `depends on NET`, `default HZ_250`; not `default y`, nor a `config` line's own name.
  assert.deepEqual(
    (top.occurrences ?? []).map((o) => `${o.kind} ${o.name}@${o.line}`),
    ["use NLATTR@13", "use NET@15", "use NET@19", "use HZ_250@25"],
  );
  await withIndexedTree(files, (db) => {
    const refs = findReferences(db, { symbol_name: "CONFIG_SERIAL_CORE" });
    assert.deepEqual(
      (refs.references ?? []).map((r) => `${r.path}:${r.line} ${r.reference_kind} ${r.resolution}`),
      ["drivers/serial/Kconfig:6 use exact", "drivers/serial/Kconfig.debug:3 use exact"],
    );
    assert.equal(refs.unresolved_candidates, 0);
    // Uses spelled CONFIG_SERIAL_CORE in C are not recorded: the answer says it is partial.
    assert.equal(refs.meta?.result_completeness, "partial");
    assert.match(refs.meta!.note, /search_code "CONFIG_SERIAL_CORE"/);
    // `config NET` in two files is one symbol: the first stands for both, with every use.
    const net = findReferences(db, { symbol_name: "NET" });
    assert.deepEqual([net.symbol.path, net.symbol.line_start], ["Kconfig", 11]);
    assert.deepEqual((net.references ?? []).map((r) => `${r.path}:${r.line}`), ["Kconfig:15", "Kconfig:19"]);
  });
});

Deno.test("imports: a relative import from a file at the top of the tree names its file", async () => {
  const files = {
    "main.ts": 'import { helper } from "./util";\nexport function main() {\n  return helper();\n}\n',
    "util.ts": "export function helper() {\n  return 1;\n}\n",
  };
  await withIndexedTree(files, (db) => {
    const imports = findRelatedSymbols(db, { symbol_name: "main" }).related.filter((r) => r.relation === "imports");
    assert.deepEqual(imports.map((r) => [r.name, r.resolved_path]), [["./util", "util.ts"]]);
  });
});
