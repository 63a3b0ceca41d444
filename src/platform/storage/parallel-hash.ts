import { createHash, type Hash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** The digests a stored blob can be measured with (Gitea's package blobs keep all four). */
export type DigestAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha512';
export type Digests = Partial<Record<DigestAlgorithm, string>>;

/** Bytes are copied into shared batches of this size and hashed a batch at a time by the workers. */
export const HASH_BATCH_BYTES = 1024 * 1024;
/** Batches one stream may have in the workers before it waits (its memory: this many batches). */
const MAX_BATCHES_IN_FLIGHT = 4;
/** Relative cost per byte (measured with node:crypto on x86-64 with SHA extensions): spreads the work. */
const COST: Record<DigestAlgorithm, number> = { sha512: 3, md5: 2.5, sha1: 1, sha256: 1 };

/**
 * The hashing worker: one hash object per algorithm per open stream, updated from a shared batch
 * (no copy), acknowledged per batch so the sender can reuse it.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const streams = new Map();
parentPort.on('message', (m) => {
  if (m.t === 'open') streams.set(m.id, m.algorithms.map((a) => createHash(a)));
  else if (m.t === 'data') {
    const hashes = streams.get(m.id);
    if (hashes) {
      const view = new Uint8Array(m.batch, 0, m.length);
      for (const hash of hashes) hash.update(view);
    }
    parentPort.postMessage({ t: 'ack', id: m.id, slot: m.slot });
  } else if (m.t === 'end') {
    const hashes = streams.get(m.id);
    streams.delete(m.id);
    parentPort.postMessage({ t: 'digests', id: m.id, digests: hashes ? hashes.map((h) => h.digest('hex')) : [] });
  } else if (m.t === 'drop') streams.delete(m.id);
});
`;

type WorkerMessage = { t: 'ack'; id: number; slot: number } | { t: 'digests'; id: number; digests: string[] };

interface Listener {
  ack(slot: number): void;
  digests(worker: HashWorker, digests: string[]): void;
  fail(error: Error): void;
}

/** One worker thread, shared by every stream that hashes in parallel; restarted after a crash. */
class HashWorker {
  private worker: Worker | undefined;
  private readonly listeners = new Map<number, Listener>();

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (message: WorkerMessage) => {
      const listener = this.listeners.get(message.id);
      if (!listener) return;
      if (message.t === 'ack') listener.ack(message.slot);
      else listener.digests(this, message.digests);
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      const listeners = [...this.listeners.values()];
      this.listeners.clear();
      for (const listener of listeners) listener.fail(error);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`hash worker exited with code ${code}`)));
    worker.unref(); // kept alive only while a stream hashes on it (see `open`)
    this.worker = worker;
    return worker;
  }

  open(id: number, algorithms: DigestAlgorithm[], listener: Listener): void {
    this.listeners.set(id, listener);
    const worker = this.started();
    if (this.listeners.size === 1) worker.ref();
    worker.postMessage({ t: 'open', id, algorithms });
  }

  private release(id: number): void {
    if (this.listeners.delete(id) && this.listeners.size === 0) this.worker?.unref();
  }

  data(id: number, slot: number, batch: SharedArrayBuffer, length: number): void {
    this.started().postMessage({ t: 'data', id, slot, batch, length });
  }

  end(id: number): void {
    this.started().postMessage({ t: 'end', id });
  }

  drop(id: number): void {
    this.release(id);
    this.worker?.postMessage({ t: 'drop', id });
  }

  forget(id: number): void {
    this.release(id);
  }
}

let pool: HashWorker[] | undefined;
let nextId = 1;

/** Two workers on a machine with two cores or more (the request thread keeps one for the I/O). */
function workers(): HashWorker[] {
  pool ??= Array.from({ length: Math.max(1, Math.min(2, availableParallelism())) }, () => new HashWorker());
  return pool;
}

/** Algorithms per worker, the costliest first onto the least loaded worker (at most one group per worker). */
function spread(algorithms: DigestAlgorithm[], count: number): DigestAlgorithm[][] {
  const groups: { load: number; algorithms: DigestAlgorithm[] }[] = Array.from({ length: count }, () => ({
    load: 0,
    algorithms: [],
  }));
  for (const algorithm of [...algorithms].sort((a, b) => COST[b] - COST[a])) {
    const group = groups.reduce((least, g) => (g.load < least.load ? g : least));
    group.algorithms.push(algorithm);
    group.load += COST[algorithm];
  }
  return groups.map((g) => g.algorithms).filter((g) => g.length > 0);
}

/**
 * Digests of a byte stream computed off the request thread. node:crypto's `update` is synchronous, so
 * four digests of a 200 MiB upload on the event loop (≈ 1.8 s of CPU) held the upload to a fraction of
 * the disk's speed (issue 34 item 4). Bytes are copied into 1 MiB shared batches and hashed by worker
 * threads, the algorithms spread over two workers by cost; `update` only makes its caller wait when
 * MAX_BATCHES_IN_FLIGHT batches are not hashed yet, so memory per stream stays at 4 MiB.
 *
 * A stream that ends within its first batch (npm tarballs, most attachments) never reaches a worker:
 * it is hashed on the calling thread at `digest()`, as cheap as before and without a round trip.
 */
export class ParallelHash {
  private readonly id = nextId++;
  private readonly slots: SharedArrayBuffer[] = [];
  private readonly views: Buffer[] = [];
  /** Per slot, the workers that have not acknowledged it yet (0: free). */
  private readonly pending: number[] = [];
  private current = 0;
  private filled = 0;
  private groups: { worker: HashWorker; algorithms: DigestAlgorithm[] }[] | undefined;
  private waiter: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;
  private finished = false;
  private inline: Hash[] | undefined;
  /** Bytes of the first batch while no worker is involved (hashed inline if the stream ends there). */
  private firstBatch: Buffer | undefined;

  constructor(private readonly algorithms: DigestAlgorithm[]) {}

  /**
   * Adds bytes. Answers a promise when it had to wait for a batch the workers still read (then the
   * rest of the chunk is added once one is free): the caller waits before giving more.
   */
  update(chunk: Buffer): Promise<void> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    let offset = 0;
    while (offset < chunk.length) {
      if (this.groups && this.pending[this.current] !== 0) {
        const rest = chunk.subarray(offset);
        return new Promise<void>((resolve, reject) => {
          this.waiter = { resolve, reject };
        }).then(() => this.update(rest));
      }
      if (!this.groups && !this.firstBatch) this.firstBatch = Buffer.allocUnsafeSlow(HASH_BATCH_BYTES);
      const target = this.groups ? this.views[this.current]! : this.firstBatch!;
      const copied = chunk.copy(target, this.filled, offset);
      offset += copied;
      this.filled += copied;
      if (this.filled === HASH_BATCH_BYTES) this.dispatch();
    }
    return undefined;
  }

  /** The digests (lowercase hex) of every byte given to `update`, by algorithm. */
  async digest(): Promise<Digests> {
    if (this.failure) throw this.failure;
    this.finished = true;
    if (!this.groups) {
      this.inline = this.algorithms.map((algorithm) => createHash(algorithm));
      const bytes = this.firstBatch?.subarray(0, this.filled);
      for (const hash of this.inline) if (bytes) hash.update(bytes);
      this.firstBatch = undefined;
      return Object.fromEntries(
        this.algorithms.map((algorithm, i) => [algorithm, this.inline![i]!.digest('hex')]),
      );
    }
    if (this.filled > 0) this.dispatch(); // the slot being filled is never one the workers read
    const groups = this.groups;
    const results = await new Promise<Map<HashWorker, string[]>>((resolve, reject) => {
      const results = new Map<HashWorker, string[]>();
      this.onDigests = (worker, digests) => {
        results.set(worker, digests);
        if (results.size === groups.length) resolve(results);
      };
      this.onFailure = reject;
      for (const group of groups) group.worker.end(this.id);
    });
    for (const group of groups) group.worker.forget(this.id);
    const digests: Digests = {};
    for (const group of groups)
      group.algorithms.forEach((algorithm, i) => (digests[algorithm] = results.get(group.worker)![i]));
    return digests;
  }

  /** Abandons the stream (an aborted or refused upload): the workers drop its state. */
  abort(): void {
    this.finished = true;
    this.firstBatch = undefined;
    for (const group of this.groups ?? []) group.worker.drop(this.id);
  }

  private onDigests: ((worker: HashWorker, digests: string[]) => void) | undefined;
  private onFailure: ((error: Error) => void) | undefined;

  private start(): void {
    const pool = workers();
    this.groups = spread(this.algorithms, pool.length).map((algorithms, i) => ({
      worker: pool[i]!,
      algorithms,
    }));
    for (let i = 0; i < MAX_BATCHES_IN_FLIGHT; i++) {
      const slot = new SharedArrayBuffer(HASH_BATCH_BYTES);
      this.slots.push(slot);
      this.views.push(Buffer.from(slot));
      this.pending.push(0);
    }
    const listener: Listener = {
      ack: (slot) => {
        this.pending[slot]! -= 1;
        if (this.pending[slot] === 0 && slot === this.current && this.waiter) {
          const waiter = this.waiter;
          this.waiter = undefined;
          waiter.resolve();
        }
      },
      digests: (worker, digests) => this.onDigests?.(worker, digests),
      fail: (error) => {
        this.failure = error;
        this.onFailure?.(error);
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter?.reject(error);
      },
    };
    for (const group of this.groups) group.worker.open(this.id, group.algorithms, listener);
    // The bytes gathered so far become the first shared batch.
    this.views[0]!.set(this.firstBatch!.subarray(0, this.filled));
    this.firstBatch = undefined;
  }

  /** Sends the current batch to the workers and moves to the next slot. */
  private dispatch(): void {
    if (!this.groups) this.start();
    const slot = this.current;
    this.pending[slot] = this.groups!.length;
    for (const group of this.groups!) group.worker.data(this.id, slot, this.slots[slot]!, this.filled);
    this.current = (slot + 1) % this.slots.length;
    this.filled = 0;
  }

  /** Whether `digest()` or `abort()` was called. */
  get done(): boolean {
    return this.finished;
  }
}

/**
 * Digests of a whole stream (a stored blob read back), hashed by the same worker threads as uploads: the
 * caller's thread only copies bytes into the shared batches. The stream is destroyed if hashing fails.
 */
export async function digestStream(
  stream: AsyncIterable<Buffer> & { destroy?(): void },
  algorithms: DigestAlgorithm[],
): Promise<Digests> {
  const hash = new ParallelHash([...new Set(algorithms)]);
  try {
    for await (const chunk of stream) {
      const waiting = hash.update(chunk);
      if (waiting) await waiting;
    }
    return await hash.digest();
  } catch (error) {
    if (!hash.done) hash.abort();
    stream.destroy?.();
    throw error;
  }
}
