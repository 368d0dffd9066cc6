/**
 * The text of a file at a ref, for comparing symbols: the lines the ref's
 * store holds, or (when the store lacks some of them) the file as the ref's
 * `readFiles` gives it. Bodies are cut from these lines by symbol line range.
 */
import type { RefView } from "../state/read/ref_view.ts";
import type { FileDigest } from "../state/read/files.ts";
import type { SymbolRow } from "../state/read/rows.ts";
import { storedLines } from "./_file_lines.ts";
import { symbolsInFile } from "../state/read/symbols.ts";
import type { SideSymbol } from "./_symbol_match.ts";

/** A file's lines at one ref, and whether they are its whole text. */
export interface RefFileText {
  lines: string[];
  complete: boolean;
}

/**
 * The lines of each of `files` at `view` (see the module comment), with one
 * `readFiles` call for those the store lacks; never throws for a missing or
 * unreadable file.
 */
async function refFileTexts(view: RefView, files: readonly FileDigest[]): Promise<Map<string, RefFileText>> {
  const out = new Map<string, RefFileText>();
  for (const f of files) out.set(f.path, storedLines(view.db, f.path, 1, f.line_count));
  const lacking = files.filter((f) => !out.get(f.path)!.complete).map((f) => f.path);
  if (!lacking.length || !view.readFiles) return out;
  try {
    for (const [path, bytes] of await view.readFiles(lacking)) {
      out.set(path, { lines: new TextDecoder().decode(bytes).split("\n"), complete: true });
    }
  } catch { /* unreadable now: compare what the store holds */ }
  return out;
}

/** A symbol with its body lines cut from its file's text. */
export function withBody(row: SymbolRow, text: RefFileText): SideSymbol {
  return { row, body: text.lines.slice(row.line_start - 1, row.line_end) };
}

/** File texts of one side, each read once (also when asked for at once), and the symbols of a file with their bodies. */
export class TextCache {
  private texts = new Map<string, Promise<RefFileText>>();
  private done = new Map<string, RefFileText>();

  constructor(readonly view: RefView) {}

  /** The text of `f` at this side. */
  text(f: FileDigest): Promise<RefFileText> {
    this.prefetch([f]).catch(() => {}); // a failure reaches the caller through the text's own promise
    return this.texts.get(f.path)!;
  }

  /** Starts reading the texts of `files` not asked for yet, the lacking ones in one read; `text` then gives them. */
  prefetch(files: readonly FileDigest[]): Promise<void> {
    const fresh = [...new Map(files.filter((f) => !this.texts.has(f.path)).map((f) => [f.path, f])).values()];
    if (!fresh.length) return Promise.resolve();
    const all = refFileTexts(this.view, fresh);
    for (const f of fresh) {
      const t = all.then((m) => m.get(f.path)!);
      this.texts.set(f.path, t);
      // A failure reaches whoever awaits the text; a text nobody asks for again is not an unhandled rejection.
      t.then((x) => this.done.set(f.path, x), () => {});
    }
    return all.then(() => {});
  }

  /** Every symbol of `f` at this side, with its body. */
  async symbols(f: FileDigest): Promise<SideSymbol[]> {
    const text = await this.text(f);
    return symbolsInFile(this.view.db, f.path, false, 1_000_000).map((r) => withBody(r, text));
  }

  /** Paths read whose text was not complete. */
  incomplete(): string[] {
    return [...this.done].filter(([, t]) => !t.complete).map(([p]) => p);
  }
}
