/**
 * One TypeScript program over a source tree, for benchmarks that ask the
 * compiler's language service (its definitions, references and call
 * hierarchy) as the oracle. Requires `--allow-read` on the tree.
 */
import { join } from "node:path";
import ts from "typescript";

/** Directories a benchmark's program leaves out. */
const SKIP = new Set(["node_modules", "dist", "fixtures", "grammars", ".git"]);

/** Every `.ts`/`.tsx` file under `dir` (declaration files and SKIP directories left out), in name order. */
export function tsFiles(dir: string, out: string[] = []): string[] {
  for (const e of [...Deno.readDirSync(dir)].sort((a, b) => a.name < b.name ? -1 : 1)) {
    if (SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory) tsFiles(p, out);
    else if (e.isFile && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** The language service of one program over `files` (absolute paths under `root`), their texts, and the program. */
export function languageService(
  root: string,
  files: string[],
): { service: ts.LanguageService; program: ts.Program; texts: Map<string, string> } {
  const texts = new Map(files.map((f) => [f, Deno.readTextFileSync(f)]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ESNext,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    noEmit: true,
    strict: true,
  };
  const service = ts.createLanguageService({
    getScriptFileNames: () => files,
    getScriptVersion: () => "1",
    getScriptSnapshot: (f) => {
      const t = texts.get(f) ?? (ts.sys.fileExists(f) ? ts.sys.readFile(f) : undefined);
      return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t);
    },
    getCurrentDirectory: () => root,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: (f) => texts.has(f) || ts.sys.fileExists(f),
    readFile: (f) => texts.get(f) ?? ts.sys.readFile(f),
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  });
  return { service, program: service.getProgram()!, texts };
}
