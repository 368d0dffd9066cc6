/**
 * Reading an HTTP response body with a ceiling: a remote endpoint's reply is
 * never held past the given number of bytes (the rest of the stream is
 * cancelled), whatever it sends. Needs no permission.
 */

/** Reads at most `limit` bytes of a response body, cancelling the rest; `complete` when the body ended first. */
export async function readCapped(res: Response, limit: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(0), complete: true };
  const reader = res.body.getReader();
  const out = new Uint8Array(limit);
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { bytes: out.subarray(0, size), complete: true };
    const take = Math.min(value.length, limit - size);
    out.set(value.subarray(0, take), size);
    size += take;
    if (take < value.length) {
      await reader.cancel().catch(() => {});
      return { bytes: out.subarray(0, size), complete: false };
    }
  }
}
