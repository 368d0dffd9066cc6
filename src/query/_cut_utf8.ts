/** Cutting text to a byte budget of UTF-8 without splitting a character. Pure; no permission. */

/**
 * `text` cut to at most `maxBytes` of UTF-8 on a character boundary (the
 * longest such prefix); `cut` when anything was dropped.
 */
export function cutUtf8(text: string, maxBytes: number): { text: string; cut: boolean } {
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return { text: new TextDecoder().decode(bytes.subarray(0, end)), cut: true };
}
