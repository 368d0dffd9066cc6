/** Joining the chunks a stream delivered (request bodies, stdin lines) into one buffer. */

/** One buffer holding `parts` in order; `size` is their total length. */
export function concatChunks(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(size);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
