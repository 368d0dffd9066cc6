/**
 * A small HTTP/1.1 server on `Deno.listen` that runs a fetch-style handler
 * (`(Request) => Promise<Response>`), written because `Deno.serve` has no
 * header-read timeout: a client that sends part of its request head and
 * then nothing kept its connection open indefinitely, and enough of them
 * starve the process (slowloris). Here every connection is bounded:
 *
 * - the whole request head must arrive within `headerTimeoutMs` of the
 *   server starting to wait for it (after accept, and after each response
 *   on a kept-alive connection, so an idle connection is closed too);
 *   otherwise the socket is closed;
 * - a head over `maxHeadBytes`, or with more than `maxHeaders` fields, is
 *   answered 431 and the connection closed; reading and parsing a head take
 *   time linear in its size, so a hostile head cannot stall other
 *   connections;
 * - the body must arrive within `bodyTimeoutMs` of the head, else the
 *   connection is closed;
 * - framing is strict: a malformed request line or header, an unknown
 *   `Transfer-Encoding`, `Transfer-Encoding` together with `Content-Length`,
 *   or conflicting `Content-Length`s are answered 400 and the connection
 *   closed (no guessing where one request ends).
 *
 * Responses: `text/event-stream` bodies are streamed chunked as they are
 * produced; any other body is sent with a `Content-Length`. Connections are
 * kept alive unless the client asks otherwise, speaks HTTP/1.0 without
 * keep-alive, or left part of its body unread. Requires `--allow-net` on
 * the listen address.
 */
import { concatChunks } from "../core/byte_chunks.ts";

/** Listener settings. */
export interface Http1Options {
  hostname: string;
  port: number;
  /** Longest wait for a complete request head (also the keep-alive idle limit). */
  headerTimeoutMs: number;
  /** Longest wait for a request body once its head has arrived. */
  bodyTimeoutMs: number;
  /** Largest request head (request line and headers). */
  maxHeadBytes: number;
  /** Most header fields in one request head; more are answered 431. */
  maxHeaders: number;
  onListen?: (addr: Deno.NetAddr) => void;
  /** The response for a handler that threw. */
  onError: (e: unknown) => Response;
  /** The response for a request that cannot be parsed or framed (sent, then the connection is closed). */
  onBadRequest: (status: number, message: string) => Response;
}

/** A running server. */
export interface Http1Server {
  addr: Deno.NetAddr;
  /** Resolves once the listener is closed and every connection has ended. */
  finished: Promise<void>;
  /** Stops accepting, closes idle connections, lets in-flight requests finish (then closes them). */
  shutdown(): Promise<void>;
}

const CRLF = new Uint8Array([13, 10]);
const enc = new TextEncoder();
const dec = new TextDecoder();
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Thrown for a request that cannot be framed or parsed; answered with `status` and the connection closed. */
class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** A connection's bytes with what was read but not yet used kept for the next read. */
class BufferedConn {
  private rest: Uint8Array = new Uint8Array(0);

  constructor(readonly conn: Deno.Conn) {}

  /** More bytes from the socket; null at end of stream or when the socket was closed under us. */
  private async read(): Promise<Uint8Array | null> {
    const buf = new Uint8Array(16 * 1024);
    let n: number | null;
    try {
      n = await this.conn.read(buf);
    } catch {
      return null;
    }
    return n === null ? null : buf.subarray(0, n);
  }

  /** Up to `max` bytes (leftovers first); null at end of stream. */
  async some(max: number): Promise<Uint8Array | null> {
    if (!this.rest.length) {
      const got = await this.read();
      if (!got) return null;
      this.rest = got;
    }
    const out = this.rest.subarray(0, max);
    this.rest = this.rest.subarray(out.length);
    return out;
  }

  /**
   * Bytes up to and including the first `CRLF CRLF` (or, with `line`, the first CRLF); null at end of stream
   * before any byte; BadRequest(status) past `max` bytes.
   */
  async until(max: number, line: boolean, status: number): Promise<Uint8Array | null> {
    const seq = line ? CRLF : CRLF_CRLF;
    // Bytes so far live in `buf[0, len)`; the buffer doubles when full, so a head dripped a byte at a time
    // costs linear time, not a copy of everything so far per read.
    let buf = this.rest;
    let len = buf.length;
    let from = 0;
    for (;;) {
      const end = indexOfSeq(buf, seq, from, len);
      if (end >= 0) {
        const stop = end + seq.length;
        this.rest = buf.subarray(stop, len);
        return buf.subarray(0, stop);
      }
      if (len > max) throw new BadRequest(status, "request head too large");
      from = Math.max(0, len - seq.length + 1);
      const got = await this.read();
      if (!got) {
        if (len) throw new BadRequest(400, "connection closed inside a request head");
        return null;
      }
      if (len + got.length > buf.length) {
        const grown = new Uint8Array(Math.max(2 * buf.length, len + got.length, 1024));
        grown.set(buf.subarray(0, len));
        buf = grown;
      }
      buf.set(got, len);
      len += got.length;
    }
  }

  /** Exactly `n` bytes or BadRequest. */
  async exact(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let o = 0;
    while (o < n) {
      const got = await this.some(n - o);
      if (!got) throw new BadRequest(400, "connection closed inside a request body");
      out.set(got, o);
      o += got.length;
    }
    return out;
  }
}

const CRLF_CRLF = new Uint8Array([13, 10, 13, 10]);

/** The first index at or after `from` where `seq` starts within `buf[0, end)`, or -1. */
function indexOfSeq(buf: Uint8Array, seq: Uint8Array, from: number, end: number): number {
  outer: for (let i = from; i <= end - seq.length; i++) {
    for (let j = 0; j < seq.length; j++) if (buf[i + j] !== seq[j]) continue outer;
    return i;
  }
  return -1;
}

/** A parsed request head. */
interface Head {
  method: string;
  target: string;
  version: "1.0" | "1.1";
  headers: Headers;
  /** Body framing: a byte count, chunked, or none. */
  body: { kind: "length"; length: number } | { kind: "chunked" } | { kind: "none" };
  keepAlive: boolean;
}

/**
 * The request line and header fields of a complete head, in time linear in its size: more than
 * `maxHeaders` fields are refused (431) before any of them is looked at.
 */
function parseHead(bytes: Uint8Array, maxHeaders: number): Head {
  // A client may send empty lines before a request line; they are skipped.
  const lines = dec.decode(bytes).slice(0, -4).replace(/^(\r\n)+/, "").split("\r\n");
  if (lines.length - 1 > maxHeaders) throw new BadRequest(431, `more than ${maxHeaders} header fields`);
  const m = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP\/1\.([01])$/.exec(lines[0]);
  if (!m) throw new BadRequest(400, "malformed request line");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) throw new BadRequest(400, "malformed header line");
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      throw new BadRequest(400, "malformed header value");
    }
  }
  const version = m[3] === "1" ? "1.1" : "1.0";
  const te = headers.get("transfer-encoding");
  const cl = headers.get("content-length");
  let body: Head["body"] = { kind: "none" };
  if (te !== null) {
    if (cl !== null) throw new BadRequest(400, "both Transfer-Encoding and Content-Length");
    if (te.trim().toLowerCase() !== "chunked") throw new BadRequest(400, "unsupported Transfer-Encoding");
    body = { kind: "chunked" };
  } else if (cl !== null) {
    const values = new Set(cl.split(",").map((v) => v.trim()));
    const [only] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(only)) throw new BadRequest(400, "invalid Content-Length");
    body = Number(only) > 0 ? { kind: "length", length: Number(only) } : { kind: "none" };
  }
  const connection = (headers.get("connection") ?? "").toLowerCase().split(",").map((t) => t.trim());
  const keepAlive = version === "1.1" ? !connection.includes("close") : connection.includes("keep-alive");
  if (!m[2].startsWith("/")) throw new BadRequest(400, "request target must be a path");
  return { method: m[1], target: m[2], version, headers, body, keepAlive };
}

/**
 * The request body as a stream read from the connection; `done()` tells whether it was read to its end.
 * Chunked trailers count as header fields: more than `maxFields` of them fail the stream.
 */
function bodyStream(
  bc: BufferedConn,
  framing: Head["body"],
  maxFields: number,
): { stream: ReadableStream<Uint8Array>; done(): boolean } {
  let finished = framing.kind === "none";
  let remaining = framing.kind === "length" ? framing.length : 0;
  let chunkLeft = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(ctl) {
      try {
        if (framing.kind === "length") {
          const got = await bc.some(remaining);
          if (!got) throw new BadRequest(400, "connection closed inside a request body");
          remaining -= got.length;
          ctl.enqueue(got);
          if (remaining === 0) finished = true, ctl.close();
          return;
        }
        if (chunkLeft === 0) {
          const line = dec.decode(await bc.until(1024, true, 400) ?? new Uint8Array(0));
          const size = /^([0-9A-Fa-f]{1,8})(;[^\r\n]*)?\r\n$/.exec(line);
          if (!size) throw new BadRequest(400, "malformed chunk size");
          chunkLeft = parseInt(size[1], 16);
          if (chunkLeft === 0) {
            // Trailer fields, if any, end with an empty line; they are read and dropped.
            for (let fields = 0;; fields++) {
              const t = await bc.until(8192, true, 400);
              if (!t) throw new BadRequest(400, "connection closed inside chunked trailers");
              if (t.length === 2) break;
              if (fields === maxFields) throw new BadRequest(431, `more than ${maxFields} trailer fields`);
            }
            finished = true;
            ctl.close();
            return;
          }
        }
        const got = await bc.some(chunkLeft);
        if (!got) throw new BadRequest(400, "connection closed inside a request body");
        chunkLeft -= got.length;
        ctl.enqueue(got);
        if (chunkLeft === 0) {
          const end = await bc.exact(2);
          if (end[0] !== 13 || end[1] !== 10) throw new BadRequest(400, "malformed chunk end");
        }
      } catch (e) {
        ctl.error(e);
      }
    },
  }, { highWaterMark: 0 });
  return { stream, done: () => finished };
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

/** True for a response whose body is a stream of events, sent as it is produced. */
function isEventStream(res: Response): boolean {
  return res.body !== null && (res.headers.get("content-type") ?? "").includes("text/event-stream");
}

const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"]);

/** Writes `res` as an HTTP/1.1 response; throws when the client has gone. */
async function writeResponse(
  conn: Deno.Conn,
  res: Response,
  head: { method: string; version: "1.0" | "1.1"; keepAlive: boolean; keepAliveSeconds: number },
): Promise<void> {
  const status = res.status;
  let text = `HTTP/1.1 ${status} ${res.statusText || reason(status)}\r\n`;
  for (const [k, v] of res.headers) if (!HOP_BY_HOP.has(k)) text += `${k}: ${v}\r\n`;
  text += head.keepAlive
    ? `connection: keep-alive\r\nkeep-alive: timeout=${head.keepAliveSeconds}\r\n`
    : "connection: close\r\n";
  const bodiless = status === 204 || status === 304 || (status >= 100 && status < 200);
  const streamed = !bodiless && head.method !== "HEAD" && isEventStream(res);
  if (!streamed) {
    // HEAD gets the length GET would have, and no body.
    const body = res.body && !bodiless ? new Uint8Array(await res.arrayBuffer()) : new Uint8Array(0);
    if (bodiless) await res.body?.cancel().catch(() => {});
    else text += `content-length: ${body.length}\r\n`;
    const headBytes = enc.encode(text + "\r\n");
    const sent = head.method === "HEAD" ? 0 : body.length;
    await writeAll(conn, concatChunks([headBytes, body.subarray(0, sent)], headBytes.length + sent));
    return;
  }
  // An HTTP/1.0 client cannot read chunks: it gets the raw stream, ended by closing the connection.
  const chunked = head.version === "1.1";
  await writeAll(conn, enc.encode(text + (chunked ? "transfer-encoding: chunked\r\n\r\n" : "\r\n")));
  const reader = res.body!.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!value.length) continue;
      if (!chunked) {
        await writeAll(conn, value);
        continue;
      }
      // One write per chunk (size line, data, CRLF), so an event never waits on Nagle's algorithm.
      const size = enc.encode(value.length.toString(16) + "\r\n");
      await writeAll(conn, concatChunks([size, value, CRLF], size.length + value.length + CRLF.length));
    }
    if (chunked) await writeAll(conn, enc.encode("0\r\n\r\n"));
  } catch (e) {
    await reader.cancel().catch(() => {});
    throw e;
  }
}

function reason(status: number): string {
  return ({
    200: "OK",
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    413: "Content Too Large",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
  } as Record<number, string>)[status] ?? "Status";
}

/**
 * Listens on `opts.hostname:opts.port` and serves `handler` under the limits in the module comment.
 * Throws `Deno.errors.AddrInUse` (synchronously) when the port is taken. Long on purpose: the
 * listener, the idle-connection set and the closing flag are shared by the accept loop, each
 * connection (`serveConn`, its own function inside) and `shutdown`, so they live in one closure.
 */
export function serveHttp1(opts: Http1Options, handler: (req: Request) => Promise<Response>): Http1Server {
  const listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
  const addr = listener.addr as Deno.NetAddr;
  const origin = `http://${addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname}:${addr.port}`;
  const keepAliveSeconds = Math.max(1, Math.floor(opts.headerTimeoutMs / 1000));
  const idle = new Set<Deno.Conn>();
  let closing = false;
  const connections: Promise<void>[] = [];

  const closeConn = (conn: Deno.Conn) => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };

  async function serveConn(conn: Deno.Conn): Promise<void> {
    const bc = new BufferedConn(conn);
    try {
      while (!closing) {
        // Wait for one complete request head, bounded by the header timeout.
        idle.add(conn);
        const timer = setTimeout(() => closeConn(conn), opts.headerTimeoutMs);
        let head: Head;
        try {
          let bytes = await bc.until(opts.maxHeadBytes, false, 431);
          while (bytes && bytes.length === 4 && bytes[0] === 13) bytes = await bc.until(opts.maxHeadBytes, false, 431);
          if (!bytes) return;
          head = parseHead(bytes, opts.maxHeaders);
        } finally {
          clearTimeout(timer);
          idle.delete(conn);
        }
        if (head.body.kind !== "none" && head.headers.get("expect")?.toLowerCase() === "100-continue") {
          await writeAll(conn, enc.encode("HTTP/1.1 100 Continue\r\n\r\n"));
        }
        const body = bodyStream(bc, head.body, opts.maxHeaders);
        const bodyTimer = head.body.kind === "none" ? undefined : setTimeout(() => {
          if (!body.done()) closeConn(conn);
        }, opts.bodyTimeoutMs);
        let res: Response;
        try {
          // No framing (or a zero length) means an empty body: the handler sees none instead of waiting for one.
          const hasBody = head.method !== "GET" && head.method !== "HEAD" && head.body.kind !== "none";
          res = await handler(
            new Request(origin + head.target, {
              method: head.method,
              headers: head.headers,
              body: hasBody ? body.stream : null,
            }),
          );
        } catch (e) {
          res = opts.onError(e);
        } finally {
          clearTimeout(bodyTimer);
        }
        // A body the handler left unread leaves the stream position unknown: this response is the last one.
        const streamsRaw = head.version === "1.0" && isEventStream(res);
        const keepAlive = head.keepAlive && body.done() && !closing && !streamsRaw;
        await writeResponse(conn, res, { method: head.method, version: head.version, keepAlive, keepAliveSeconds });
        if (!keepAlive) return;
      }
    } catch (e) {
      if (e instanceof BadRequest) {
        const res = opts.onBadRequest(e.status, `Bad request: ${e.message}`);
        await writeResponse(conn, res, { method: "GET", version: "1.1", keepAlive: false, keepAliveSeconds })
          .catch(() => {});
      }
    } finally {
      idle.delete(conn);
      closeConn(conn);
    }
  }

  const accepting = (async () => {
    opts.onListen?.(addr);
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        break; // listener closed
      }
      try {
        (conn as Deno.TcpConn).setNoDelay(true);
      } catch { /* not a TCP socket */ }
      const p = serveConn(conn);
      connections.push(p);
      p.finally(() => connections.splice(connections.indexOf(p), 1));
    }
  })();

  const finished = accepting.then(async () => {
    while (connections.length) await Promise.allSettled([...connections]);
  });

  return {
    addr,
    finished,
    shutdown() {
      if (!closing) {
        closing = true;
        try {
          listener.close();
        } catch { /* closed */ }
        for (const c of idle) closeConn(c);
      }
      return finished;
    },
  };
}
