/**
 * A pool of parse workers. Workers are recycled after a number of files
 * because WASM heaps only grow; a worker that dies fails only its file.
 *
 * Where workers come from is injected: on the main thread the pool creates
 * them itself; inside the job worker it asks the main thread for them and
 * talks over a MessagePort (Deno starts nested workers about a second slower).
 */
import { buildFileRows, type FileFacts, type FileRows } from "../state/file_rows.ts";
import { type PackedOccurrences, packOccurrences, unpackOccurrences } from "./occurrence_wire.ts";

/** One file to parse, with the manifest facts the rows will carry. `bytes` is transferred, not copied. */
export interface ParseTask {
  id: number;
  facts: FileFacts;
  bytes: Uint8Array;
  /** False for a file above the full-text limit: symbols and references only, no chunks. Default true. */
  fullText?: boolean;
}

/** Posts a task handing its bytes over to the receiver (zero-copy). */
export function postTask(target: { postMessage(m: unknown, transfer: Transferable[]): void }, t: ParseTask): void {
  const whole = t.bytes.byteOffset === 0 && t.bytes.byteLength === t.bytes.buffer.byteLength;
  target.postMessage(t, whole ? [t.bytes.buffer as ArrayBuffer] : []);
}

/** What a worker answers for one file: its rows, ready to insert. */
export interface ParseResult {
  id: number;
  rows: FileRows;
  /** Set when extraction failed or the tree had errors (the file is still indexed). */
  problem: string | null;
}

/** A `ParseResult` as it travels between threads: the occurrences packed (see occurrence_wire.ts). */
export interface ParseResultMessage extends Omit<ParseResult, "rows"> {
  rows: Omit<FileRows, "occurrences"> & { occurrences: PackedOccurrences };
}

/** Posts a parse result with its occurrences packed, handing their numbers over (zero-copy). */
export function postResult(target: { postMessage(m: unknown, transfer: Transferable[]): void }, r: ParseResult): void {
  const occurrences = packOccurrences(r.rows.occurrences);
  const m: ParseResultMessage = { ...r, rows: { ...r.rows, occurrences } };
  target.postMessage(m, [occurrences.cols.buffer as ArrayBuffer]);
}

/** The parse result a `postResult` message carries. */
export function receiveResult(m: ParseResultMessage): ParseResult {
  return { ...m, rows: { ...m.rows, occurrences: unpackOccurrences(m.rows.occurrences) } };
}

/** A live parse worker as the pool sees it. */
export interface ParserEndpoint {
  post(task: ParseTask): void;
  /** Set by the pool: a result arrived. */
  onResult: (r: ParseResult) => void;
  /** Set by the pool: the worker died. */
  onCrash: (message: string) => void;
  close(): void;
}

/** Creates a parse worker endpoint. */
export type SpawnParser = () => Promise<ParserEndpoint>;

/** URL of the parse worker module. */
export const PARSE_WORKER_URL = new URL("./parse_worker.ts", import.meta.url);

/** Spawns a parse worker directly (main thread). */
export const spawnLocalParser: SpawnParser = () => {
  const worker = new Worker(PARSE_WORKER_URL, { type: "module" });
  const ep: ParserEndpoint = {
    post: (t) => postTask(worker, t),
    onResult: () => {},
    onCrash: () => {},
    close: () => worker.terminate(),
  };
  worker.onmessage = (e: MessageEvent<ParseResultMessage>) => ep.onResult(receiveResult(e.data));
  worker.onerror = (e: ErrorEvent) => {
    e.preventDefault();
    ep.onCrash(e.message);
  };
  return Promise.resolve(ep);
};

/** The rows of a file whose parser died: indexed by path, without symbols or chunks. */
function crashResult(task: ParseTask, message: string): ParseResult {
  const problem = `parser crashed: ${message}`;
  return {
    id: task.id,
    rows: buildFileRows({ ...task.facts, parseError: problem }, [], [], []),
    problem,
  };
}

/** A file waiting for its parse, and who waits for its result. */
interface Pending {
  task: ParseTask;
  resolve: (r: ParseResult) => void;
}

interface Slot {
  ep: ParserEndpoint | null;
  /** Files handed to this parser, in the order it parses them (the first is the one it is on). */
  pending: Pending[];
  done: number;
  /** Set once the parser has been given its last file before it is replaced. */
  draining: boolean;
}

/**
 * Files handed to one parser at a time. The parser starts the next as soon
 * as it ends one, instead of when the writer's thread, busy inserting the
 * rows of another file, gets to the result and hands it a new one (on the
 * Go tree each of two parsers sat idle for 28% of the cold index).
 */
export const PARSER_QUEUE_DEPTH = 2;

/**
 * A parser that has just handled a file larger than this is replaced: its
 * WebAssembly heap grew to hold that file's tree and never shrinks, so a few
 * huge generated files would otherwise keep every worker at their size.
 */
export const RECYCLE_AFTER_BYTES = 2 * 1024 * 1024;

/** Parses files on `size` workers. */
export class WorkerPool {
  private slots: Slot[] = [];
  private queue: Pending[] = [];
  private closed = false;

  constructor(size: number, private recycleAfter: number, private spawn: SpawnParser = spawnLocalParser) {
    this.grow(size);
  }

  private fill(slot: Slot): void {
    slot.ep = null;
    slot.done = 0;
    slot.draining = false;
    this.spawn().then((ep) => {
      // Closed, or shrunk away while it started.
      if (this.closed || !this.slots.includes(slot)) return ep.close();
      ep.onResult = (r) => {
        // A parser answers in the order it was given files.
        const at = Math.max(0, slot.pending.findIndex((p) => p.task.id === r.id));
        const [b] = slot.pending.splice(at, 1);
        slot.done++;
        b?.resolve(r);
        if (slot.draining && !slot.pending.length) this.recycle(slot);
        this.pump();
      };
      ep.onCrash = (message) => {
        const [b, ...behind] = slot.pending;
        slot.pending = [];
        if (b) b.resolve(crashResult(b.task, message));
        // The files behind it never started: another parser takes them (their bytes were kept, see `hand`).
        this.queue.unshift(...behind);
        this.recycle(slot);
        this.pump();
      };
      slot.ep = ep;
      this.pump();
    });
  }

  private recycle(slot: Slot): void {
    slot.ep?.close();
    if (!this.closed && this.slots.includes(slot)) this.fill(slot);
  }

  private pump(): void {
    for (const slot of this.slots) {
      while (slot.ep && !slot.draining && slot.pending.length < PARSER_QUEUE_DEPTH && this.queue.length) {
        this.hand(slot, this.queue.shift()!);
      }
    }
  }

  /**
   * Gives `slot`'s parser one more file. The first file goes with its bytes
   * (transferred); a file behind another goes with a copy, so that if the
   * parser dies on the one before, the file can go to another parser. A
   * parser is given no file after its last one before it is replaced: the
   * `recycleAfter`-th, or one over RECYCLE_AFTER_BYTES.
   */
  private hand(slot: Slot, next: Pending): void {
    const behind = slot.pending.length > 0;
    slot.pending.push(next);
    if (slot.done + slot.pending.length >= this.recycleAfter || next.task.facts.size > RECYCLE_AFTER_BYTES) {
      slot.draining = true;
    }
    slot.ep!.post(behind ? { ...next.task, bytes: next.task.bytes.slice() } : next.task);
  }

  /** Adds workers until the pool has `n`. */
  grow(n: number): void {
    while (this.slots.length < n && !this.closed) {
      const slot: Slot = { ep: null, pending: [], done: 0, draining: false };
      this.slots.push(slot);
      this.fill(slot);
    }
  }

  /** Drops files not yet handed to a worker (a failed run's leftovers: nobody waits for them). */
  dropQueued(): void {
    this.queue.length = 0;
  }

  /** Closes idle workers beyond the first `n` (a warm pool after a burst). */
  shrink(n: number): void {
    while (this.slots.length > Math.max(1, n)) {
      const i = this.slots.findLastIndex((s) => !s.pending.length);
      if (i < 0) return;
      const [slot] = this.slots.splice(i, 1);
      slot.ep?.close();
    }
  }

  /** Parses one file. */
  parse(task: ParseTask): Promise<ParseResult> {
    return new Promise((resolve) => {
      this.queue.push({ task, resolve });
      this.pump();
    });
  }

  /** Closes every worker (once: a second close does nothing). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.slots) s.ep?.close();
  }
}
