/**
 * Two versions of a small TypeScript repository, for the ref-comparing
 * queries: between v1 and v2 a function is renamed (computeTotal →
 * sumPrices), a signature changes (scale), a body changes (clamp), a method
 * changes inside an unchanged class (Point.norm), a file moves unchanged
 * (src/util/strings.ts → src/text/strings.ts), a file moves with an edit
 * (src/config.ts → src/settings/config.ts), a module is deleted
 * (src/legacy.ts), a module is added (src/fresh.ts) and a text-only file
 * with no symbols changes (db/schema.sql); src/shapes.ts, unchanged, gives
 * `norm` a second definition.
 */
import { dirname, join } from "node:path";

const TOTAL_BODY = [
  "  let total = 0;",
  "  for (const item of items) {",
  "    total += item.price * item.quantity;",
  "  }",
  "  if (total < 0) throw new Error('negative total');",
  "  return total;",
  "}",
];

const MATH_V1 = [
  "export function computeTotal(items: { price: number; quantity: number }[]): number {",
  ...TOTAL_BODY,
  "",
  "export function scale(x: number): number {",
  "  return x * 2;",
  "}",
  "",
  "export function clamp(x: number, lo: number, hi: number): number {",
  "  if (x < lo) return lo;",
  "  if (x > hi) return hi;",
  "  return x;",
  "}",
  "",
].join("\n");

const MATH_V2 = [
  "export function sumPrices(items: { price: number; quantity: number }[]): number {",
  ...TOTAL_BODY,
  "",
  "export function scale(x: number, factor: number): number {",
  "  return x * factor;",
  "}",
  "",
  "export function clamp(x: number, lo: number, hi: number): number {",
  "  return Math.min(hi, Math.max(lo, x));",
  "}",
  "",
].join("\n");

const GEO = (norm: string) =>
  [
    "export class Point {",
    "  constructor(public x: number, public y: number) {}",
    "",
    "  norm(): number {",
    `    return ${norm};`,
    "  }",
    "",
    "  flip(): Point {",
    "    return new Point(this.y, this.x);",
    "  }",
    "}",
    "",
  ].join("\n");

const SHAPES = [
  "export class Circle {",
  "  constructor(public r: number) {}",
  "",
  "  norm(): number {",
  "    return Math.abs(this.r);",
  "  }",
  "}",
  "",
].join("\n");

const STRINGS = [
  "export function shout(s: string): string {",
  "  return s.toUpperCase() + '!';",
  "}",
  "",
  "export function whisper(s: string): string {",
  "  return s.toLowerCase() + '...';",
  "}",
  "",
].join("\n");

const CONFIG = (port: string) =>
  [
    "export function loadConfig(env: Record<string, string>): { port: number; host: string } {",
    `  const port = Number(env.PORT ?? "${port}");`,
    "  const host = env.HOST ?? 'localhost';",
    "  return { port, host };",
    "}",
    "",
    "export function describeConfig(c: { port: number; host: string }): string {",
    "  return `${c.host}:${c.port}`;",
    "}",
    "",
  ].join("\n");

const LEGACY = [
  "export function oldWay(a: number): number {",
  "  return a + 1;",
  "}",
  "",
].join("\n");

const FRESH = [
  "export function freshStart(name: string): string {",
  "  const greeting = `hello ${name}`;",
  "  return greeting;",
  "}",
  "",
].join("\n");

/** The files of v1 (path → text). */
export const V1: Record<string, string> = {
  "README.md": "# demo\n\nVersion one.\n",
  "db/schema.sql": "CREATE TABLE items (id INTEGER PRIMARY KEY);\n",
  "src/math.ts": MATH_V1,
  "src/geo.ts": GEO("Math.sqrt(this.x * this.x + this.y * this.y)"),
  "src/util/strings.ts": STRINGS,
  "src/config.ts": CONFIG("8080"),
  "src/legacy.ts": LEGACY,
  "src/shapes.ts": SHAPES,
};

/** The files of v2 (path → text). */
export const V2: Record<string, string> = {
  "README.md": "# demo\n\nVersion two.\n",
  "db/schema.sql": "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT);\n",
  "src/math.ts": MATH_V2,
  "src/geo.ts": GEO("Math.hypot(this.x, this.y)"),
  "src/text/strings.ts": STRINGS,
  "src/settings/config.ts": CONFIG("9090"),
  "src/fresh.ts": FRESH,
  "src/shapes.ts": SHAPES,
};

/** Writes `files` into `dir` (creating directories); returns `dir`. */
export function writeFiles(dir: string, files: Record<string, string>): string {
  for (const [p, text] of Object.entries(files)) {
    Deno.mkdirSync(join(dir, dirname(p)), { recursive: true });
    Deno.writeTextFileSync(join(dir, p), text);
  }
  return dir;
}

/** Removes every file of `files` from `dir`. */
export function removeFiles(dir: string, files: Record<string, string>): void {
  for (const p of Object.keys(files)) Deno.removeSync(join(dir, p));
}
