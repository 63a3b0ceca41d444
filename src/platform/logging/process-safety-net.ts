/**
 * The process-level safety net (issue 31.3): an unhandled rejection or an uncaught exception of some
 * background work (a provisioner job, a daemon, an agent's stream) is logged and the process keeps
 * serving. Without it Node ends the whole server on the first promise nobody awaited.
 */
export function installProcessSafetyNet(
  write: (line: string) => void = (line) => process.stderr.write(line),
): () => void {
  const describe = (error: unknown): string =>
    error instanceof Error ? (error.stack ?? error.message) : String(error);
  const onRejection = (reason: unknown): void =>
    write(`devplane: unhandled promise rejection (the process keeps serving): ${describe(reason)}\n`);
  const onException = (error: unknown): void =>
    write(`devplane: uncaught exception (the process keeps serving): ${describe(error)}\n`);
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
