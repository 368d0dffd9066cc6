/** A live progress line on stderr for a TTY (files, symbols, rate, ETA); silent otherwise. */
import type { ProgressEvent } from "../state/jobs.ts";

/** Draws progress events on stderr when it is a terminal. */
export class ProgressBar {
  private readonly tty = Deno.stderr.isTerminal();
  private readonly t0 = performance.now();
  private drawn = false;
  private enc = new TextEncoder();

  update(e: ProgressEvent): void {
    if (!this.tty) return;
    const secs = (performance.now() - this.t0) / 1000;
    const rate = secs > 0 ? e.filesIndexed / secs : 0;
    const left = rate > 0 && e.filesTotal ? (e.filesTotal - e.filesIndexed) / rate : 0;
    const width = 24;
    const filled = Math.round((e.percentage / 100) * width);
    const bar = "█".repeat(filled) + "░".repeat(width - filled);
    const line = `${bar} ${String(e.percentage).padStart(3)}%  ${e.filesIndexed}/${e.filesTotal} files  ` +
      `${e.symbols} symbols  ${rate.toFixed(0)} files/s  ETA ${left.toFixed(0)}s  ${e.stage}`;
    Deno.stderr.writeSync(this.enc.encode(`\r\x1b[2K${line}`));
    this.drawn = true;
  }

  done(): void {
    if (this.drawn) Deno.stderr.writeSync(this.enc.encode("\r\x1b[2K"));
  }
}
