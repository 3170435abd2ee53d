// The last write of every open client when a Node process exits, through one 'exit' listener
// on `process` however many clients there are: a listener per client made the eleventh print
// Node's MaxListenersExceededWarning, which reads as a leak to the game's developer.

type ProcessLike = { on?: Function; off?: Function; versions?: { node?: string } };

const onExit = new Set<() => void>();
let listening: ProcessLike | undefined;

function runAll(): void {
  for (const write of onExit) {
    try {
      write();
    } catch {
      // One client's failing store must not keep the others from writing.
    }
  }
}

/**
 * Runs `write` when the process exits (in Node; elsewhere nothing), until the answered function
 * is called. `write` must be synchronous: nothing asynchronous runs after 'exit'.
 */
export function atProcessExit(write: () => void): () => void {
  const proc = (globalThis as { process?: ProcessLike }).process;
  if (!proc?.versions?.node || typeof proc.on !== 'function') return () => {};
  onExit.add(write);
  if (!listening) {
    proc.on('exit', runAll);
    listening = proc;
  }
  return () => {
    onExit.delete(write);
    if (onExit.size === 0 && listening) {
      listening.off?.('exit', runAll);
      listening = undefined;
    }
  };
}
