/**
 * Reading an error query the way it was pasted: the message without its
 * exception / panic prefixes, and the literal fragments of it that can be in
 * the source (the text between runtime values such as numbers or quoted
 * names, which the program filled in).
 */

/** Prefixes that frame a message: `pkg.FooError:`, `panic:`, `fatal error:`, `Error[E0308]:`. */
const PREFIX =
  /^\s*(?:[\w$.]*[A-Z][\w$]*|panic|fatal error|fatal|error(?:\[E\d+\])?|warning|runtime error|thread '[^']*' panicked at)\s*:\s+/i;

/** The message of an error query: first non-empty line, framing prefixes removed. */
export function errorMessage(text: string): string {
  let line = text.split("\n").map((l) => l.trim()).find(Boolean) ?? text.trim();
  // Rust before 1.73: thread 'main' panicked at 'MESSAGE', src/main.rs:2:5
  const rust = line.match(/panicked at '(.+)'(?:,\s*\S+:\d+:\d+)?\s*$/);
  if (rust) return rust[1].slice(0, 300);
  for (let i = 0; i < 4; i++) {
    const next = line.replace(PREFIX, "");
    if (next === line || !next.trim()) break;
    line = next;
  }
  // Some loggers wrap the reason in parentheses after a status word: `Word (reason)` keeps the reason.
  const wrapped = line.match(/^\w+ \((.+)\)$/);
  if (wrapped) line = wrapped[1];
  return line.slice(0, 300);
}

/**
 * Literal pieces worth looking for, longest first: quoted parts of the query
 * (when the quotes wrap a message rather than a value), and the stretches of
 * the message between runtime values.
 */
export function literalFragments(text: string): string[] {
  const out = new Set<string>();
  const msg = errorMessage(text);
  const keep = (s: string) => {
    const t = s.trim().replace(/^[\s,;:.!?()[\]{}-]+|[\s,;:([{-]+$/g, "");
    if (t.length >= 8 && /[A-Za-z]{2}/.test(t) && t.split(/\s+/).length >= 2) out.add(t);
  };
  keep(msg);
  // `message: TypeName`: each side of a colon can be in the source on its own.
  for (const side of msg.split(/:\s+/)) keep(side);
  for (const m of text.matchAll(/"([^"\n]+)"|`([^`\n]+)`|“([^”\n]+)”/g)) keep(m[1] ?? m[2] ?? m[3]);
  // Values a program interpolates: quoted names, numbers, addresses, paths.
  for (const piece of msg.split(/'[^']*'|"[^"]*"|`[^`]*`|0x[0-9a-f]+|-?\b\d[\w.]*|(?:\/[\w.-]+){2,}/i)) keep(piece);
  return [...out].sort((a, b) => b.length - a.length).slice(0, 5);
}

/** The words of a message that the source can contain: runtime values (quoted names, numbers) removed. */
export function messageText(text: string): string {
  return errorMessage(text).replace(/'[^']*'|"[^"]*"|`[^`]*`|0x[0-9a-f]+|-?\b\d[\w.]*/gi, " ");
}

/** True when a source line raises, panics with or defines an error message. */
export function isErrorSite(line: string): boolean {
  return /\b(raise|throw|throws|panic!?|fatal|die|abort|errors\.New|Errorf|New[A-Z]\w*Error|expect|Err|bail!|unreachable!|assert\w*|logger?\.(error|warn))\b|\w+(Error|Exception)\s*\(|^\s*(const|static|final|private|public|var|let)?\s*[\w ]*[A-Z_]{3,}\s*[:=]/
    .test(
      line,
    );
}
