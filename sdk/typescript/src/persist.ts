// The client's lasting state in a StorageAdapter: written at most once per `delayMs` however
// many calls changed it (serialising a long queue on every track() would cost a game frames),
// at once on flush (page hidden, close, process exit), and read once at start.
import type { Clock, TimerHandle } from './clock.js';
import type { StorageAdapter } from './storage.js';

export class Persisted<T> {
  private timer: TimerHandle | undefined;
  private writing: Promise<void> = Promise.resolve();
  /**
   * Nothing is written before the stored value has been read (it would be overwritten by a
   * partial one), nor ever after a failed read: what storage holds then stays as it is.
   */
  private writable = false;

  constructor(
    private readonly storage: StorageAdapter,
    private readonly key: string,
    private readonly current: () => T,
    private readonly onFailure: (error: unknown) => void,
    private readonly clock: Clock,
    private readonly delayMs: number,
  ) {}

  /** The stored value, or undefined when there is none or it cannot be read. */
  async load(): Promise<T | undefined> {
    let raw: string | null | undefined;
    try {
      raw = await this.storage.getItem(this.key);
    } catch (error) {
      this.onFailure(error);
      return undefined;
    }
    this.writable = true;
    try {
      return raw ? (JSON.parse(raw) as T) : undefined;
    } catch (error) {
      // Unreadable JSON (a torn write by something else): start afresh over it.
      this.onFailure(error);
      return undefined;
    }
  }

  /** Writes the current value within `delayMs` (once for every change made meanwhile). */
  save(): void {
    if (this.timer !== undefined || !this.writable) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.writing = this.writing.then(() => this.write());
    }, this.delayMs);
  }

  /** Writes now, and answers once this and every earlier write is done. */
  flush(): Promise<void> {
    this.cancel();
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /**
   * Writes now without waiting, for the last moment of a process or page: complete at return
   * with a synchronous store (localStorage, the Node file store).
   */
  flushNow(): void {
    this.cancel();
    void this.write();
  }

  private cancel(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async write(): Promise<void> {
    if (!this.writable) return;
    try {
      await this.storage.setItem(this.key, JSON.stringify(this.current()));
    } catch (error) {
      this.onFailure(error);
    }
  }
}
