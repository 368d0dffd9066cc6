/**
 * Turning a tool's `symbol_name` (+ optional `path`) into exactly one
 * definition, or the registry error that says why not: `symbol_not_found`
 * with suggestions, `ambiguous_symbol` with the candidates, `file_not_found`
 * for a path outside the index. A `symbol_id` handle is accepted as a name.
 */
import type { Db } from "../state/db.ts";
import { CruxeError } from "../core/errors.ts";
import { parseIndexPath, requireName } from "./_input_rules.ts";
import { notInIndex } from "./_path_suggestions.ts";
import { suggestSymbols } from "./_suggest_symbols.ts";
import { prefixedRows, spelledAs } from "./_prefixed_names.ts";
import { hasGlobalNames } from "../core/languages.ts";
import { parseSymbolName, qualifierMatch } from "./locate_symbol.ts";
import { byCodeUnits, symbolFields, TYPE_KINDS } from "./_symbol_row.ts";
import { isEmbedded } from "./_go_resolve.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { symbolById, symbolsByName } from "../state/read/symbols.ts";
import { hasFile } from "../state/read/files.ts";

/** Most candidates listed in an `ambiguous_symbol` error. */
const MAX_LISTED = 20;

/**
 * The single definition meant by `symbolName` (narrowed by `path`, and by `kind` when some definition has it), or a
 * registry error.
 */
export function resolveSymbol(db: Db, symbolName: unknown, pathInput?: unknown, kind?: string): SymbolRow {
  const name = requireName(symbolName, "symbol_name");
  let path: string | undefined;
  if (pathInput !== undefined && pathInput !== null && pathInput !== "") {
    path = parseIndexPath(db, pathInput);
    if (!hasFile(db, path)) {
      throw notInIndex(db, path);
    }
  }
  if (/^sym_[0-9a-f]{24}$/.test(name)) {
    const row = symbolById(db, name);
    if (row) return row;
    throw new CruxeError("symbol_not_found", `No symbol with id ${name} (the index may have changed)`, {
      name,
      suggestions: [],
    });
  }
  const parsed = parseSymbolName(name);
  // A prefixed spelling (`CONFIG_FOO`) also names the symbol it prefixes (Kconfig's `FOO`).
  let rows = [
    ...symbolsByName(db, parsed.leaf, { path }),
    ...prefixedRows(parsed.leaf, (n) => symbolsByName(db, n, { path })),
  ];
  // Exact spelling wins over a case-insensitive match; a fully matching qualified name over a partial one.
  if (rows.some((r) => spelledAs(r, parsed.leaf))) rows = rows.filter((r) => spelledAs(r, parsed.leaf));
  if (parsed.qualifiers.length && rows.length) {
    const q = new Map(rows.map((r) => [r, qualifierMatch(r, parsed)]));
    const best = Math.max(...q.values());
    rows = best > 0 ? rows.filter((r) => q.get(r) === best) : [];
  }
  // A Go embedded field is named after the type it embeds: it never competes with a type of that name.
  if (rows.length > 1 && rows.some((r) => TYPE_KINDS.has(r.kind))) {
    rows = rows.filter((r) => !(r.language === "go" && r.kind === "field" && isEmbedded(r)));
  }
  if (kind && rows.some((r) => r.kind === kind)) rows = rows.filter((r) => r.kind === kind);
  // A constructor is named after its class (Java, C#, C++): the class's name means the class.
  const types = new Set(rows.filter((r) => TYPE_KINDS.has(r.kind)).map((r) => r.id));
  if (types.size) rows = rows.filter((r) => !(r.kind === "constructor" && types.has(r.parent_id ?? -1)));
  if (rows.length === 0) {
    const where = path ? ` in ${path.slice(0, 300)}` : "";
    throw new CruxeError("symbol_not_found", `No definition of "${name.slice(0, 200)}"${where}`, {
      name: name.slice(0, 200),
      ...(path ? { path } : {}),
      suggestions: suggestSymbols(db, name),
    });
  }
  // Several rows of one qualified name in one file are redefinitions (overloads, property
  // getter/setter): the first is the one to navigate from.
  const first = rows.reduce((a, b) => (b.line_start < a.line_start ? b : a));
  if (rows.every((r) => r.qualified_name === first.qualified_name && r.path === first.path)) return first;
  rows.sort((a, b) => byCodeUnits(a.path, b.path) || a.line_start - b.line_start);
  // In a language with one namespace (Kconfig), entries of one name anywhere are one symbol: the first stands
  // for them all.
  const seen = new Set<string>();
  rows = rows.filter((r) => {
    if (!hasGlobalNames(r.language)) return true;
    const key = `${r.language}\0${r.qualified_name}`;
    return !seen.has(key) && !!seen.add(key);
  });
  if (rows.length === 1) return rows[0];
  throw new CruxeError(
    "ambiguous_symbol",
    `"${
      name.slice(0, 200)
    }" has ${rows.length} definitions; pass \`path\`, a qualified name or a symbol_id to choose one`,
    {
      name: name.slice(0, 200),
      total_candidates: rows.length,
      candidates: rows.slice(0, MAX_LISTED).map(symbolFields),
    },
  );
}
