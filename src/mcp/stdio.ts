/**
 * MCP over stdio: newline-delimited JSON-RPC on stdin/stdout, nothing else
 * ever written to stdout. Our own Transport (the SDK's StdioServerTransport
 * drops a malformed line without an answer and closes itself when a line
 * exceeds its buffer): a malformed line gets a JSON-RPC parse error, a
 * batch or a request with bad params is refused by `screenMessage` (the same
 * answer as over HTTP), an over-long line (> MAX_LINE_BYTES) is skipped without buffering it and
 * answered with `invalid_input`, and serving goes on. stdin closing ends the
 * session once every request read before it (a last line without its newline
 * included) has been answered, so `echo '{…}' | cruxe serve-mcp` gets its
 * answer. Requires no permission beyond stdio.
 */
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { decorateErrors, jsonRpcError } from "./jsonrpc_errors.ts";
import { concatChunks } from "../core/byte_chunks.ts";
import { screenMessage } from "./message_screen.ts";
import { warn } from "../core/log.ts";

/** Longest accepted message line (bigger requests are refused without being held in memory). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

/**
 * How long end of input waits for requests still owed an answer. Past it the
 * session closes without them (said on stderr), so a stuck query never keeps
 * the process alive after its client has gone.
 */
export const EOF_ANSWER_GRACE_MS = 2000;

/** A Transport over a byte stream in and a byte sink out, one JSON-RPC message per line. */
export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;
  private encoder = new TextEncoder();
  private decoder = new TextDecoder();
  /** Ids of requests read and not yet answered; end of input waits for them. */
  private unanswered = new Set<string | number>();
  private allAnswered: (() => void) | null = null;

  constructor(
    private input: ReadableStream<Uint8Array>,
    private output: { write(p: Uint8Array): Promise<number> },
    private maxLineBytes = MAX_LINE_BYTES,
    private eofGraceMs = EOF_ANSWER_GRACE_MS,
  ) {}

  start(): Promise<void> {
    this.reader = this.input.getReader();
    this.pump().catch((e) => this.onerror?.(e as Error)).finally(() => this.close());
    return Promise.resolve();
  }

  private async pump(): Promise<void> {
    let parts: Uint8Array[] = [];
    let size = 0;
    let oversized = false;
    while (!this.closed) {
      const { value, done } = await this.reader!.read();
      if (done) break;
      let start = 0;
      for (;;) {
        const nl = value.indexOf(10, start);
        const end = nl === -1 ? value.length : nl;
        if (!oversized) {
          if (size + (end - start) > this.maxLineBytes) {
            oversized = true;
            parts = [];
          } else if (end > start) {
            parts.push(value.subarray(start, end));
            size += end - start;
          }
        }
        if (nl === -1) break;
        if (oversized) {
          this.reply(jsonRpcError(null, ErrorCode.InvalidRequest, `Request exceeds ${this.maxLineBytes} bytes`, {
            max_bytes: this.maxLineBytes,
          }));
        } else this.handleLine(concatChunks(parts, size));
        parts = [];
        size = 0;
        oversized = false;
        start = nl + 1;
      }
    }
    if (this.closed) return;
    // End of input: a last request without its newline is still a request.
    if (!oversized && size) this.handleLine(concatChunks(parts, size));
    await this.settleOwed();
  }

  /** Waits (at most `eofGraceMs`) for the requests still owed; past it, says which are left unanswered. */
  private async settleOwed(): Promise<void> {
    if (!this.unanswered.size) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answered = new Promise<boolean>((resolve) => this.allAnswered = () => resolve(true));
    const late = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), this.eofGraceMs));
    const all = await Promise.race([answered, late]);
    clearTimeout(timer);
    if (all) return;
    warn(
      `input ended; stopping without answering ${this.unanswered.size} request(s) still running after ` +
        `${this.eofGraceMs} ms (ids ${[...this.unanswered].slice(0, 5).join(", ")})`,
    );
    await this.writing;
  }

  /** Notes a request (it has a method and an id) that must be answered before end of input closes the session. */
  private expectAnswer(m: JSONRPCMessage): void {
    if ("method" in m && "id" in m && (typeof m.id === "string" || typeof m.id === "number")) this.unanswered.add(m.id);
  }

  /** Notes a response going out; the last one owed after end of input lets the session close. */
  private answered(m: JSONRPCMessage): void {
    if ("method" in m || !("id" in m) || (typeof m.id !== "string" && typeof m.id !== "number")) return;
    if (this.unanswered.delete(m.id) && !this.unanswered.size) this.allAnswered?.();
  }

  private handleLine(bytes: Uint8Array): void {
    const line = this.decoder.decode(bytes).replace(/\r$/, "");
    if (!line.trim()) return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (e) {
      this.reply(jsonRpcError(null, ErrorCode.ParseError, `Parse error: ${(e as Error).message}`));
      return;
    }
    const screened = screenMessage(raw);
    if (screened.refusal) {
      this.reply(screened.refusal);
      return;
    }
    this.expectAnswer(screened.message);
    this.onmessage?.(screened.message);
  }

  private reply(message: ReturnType<typeof jsonRpcError>): void {
    this.send(message as unknown as JSONRPCMessage).catch((e) => this.onerror?.(e as Error));
  }

  /** Writes one message as one line; writes are serialized so lines never interleave. */
  send(message: JSONRPCMessage): Promise<void> {
    this.answered(message);
    const bytes = this.encoder.encode(JSON.stringify(message) + "\n");
    // A message sent before close() is written (close waits for it); one sent after is dropped.
    if (this.closed) return Promise.resolve();
    const next = this.writing.then(async () => {
      let off = 0;
      while (off < bytes.length) off += await this.output.write(bytes.subarray(off));
    });
    this.writing = next.catch(() => {});
    return next;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.writing;
      this.reader?.releaseLock();
    } catch { /* stream already gone */ }
    this.onclose?.();
  }
}

/** The transport for this process's stdin/stdout. */
export function stdioTransport(): LineTransport {
  return new LineTransport(Deno.stdin.readable, Deno.stdout);
}

/**
 * Serves one MCP session over this process's stdio until stdin closes.
 * Requires no permission beyond stdio (and what the tools need).
 */
export async function serveStdio(
  createServer: () => import("@modelcontextprotocol/sdk/server").Server,
  transport: LineTransport = stdioTransport(),
  onConnected?: () => void,
): Promise<void> {
  const server = createServer();
  const closed = new Promise<void>((resolve) => {
    const prev = server.onclose;
    server.onclose = () => {
      prev?.();
      resolve();
    };
  });
  await server.connect(decorateErrors(transport));
  onConnected?.();
  await closed;
}
