import { readFile } from 'node:fs/promises';

/** Ports Coder's agent leaves out of the list (its own services and well-known system ones below 9). */
const MIN_PORT = 9;

/**
 * The TCP ports something listens on in the workspace's network namespace (`/proc/net/tcp{,6}`, state
 * 0A), as Coder's WorkspaceAgentListeningPort: `{process_name, network: "tcp", port}` (the process name
 * is not looked up: empty).
 */
export async function listeningPorts(): Promise<{ process_name: string; network: string; port: number }[]> {
  const ports = new Set<number>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(file, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== '0A') continue;
      const port = Number.parseInt(fields[1]!.split(':')[1] ?? '', 16);
      if (Number.isInteger(port) && port >= MIN_PORT) ports.add(port);
    }
  }
  return [...ports].sort((a, b) => a - b).map((port) => ({ process_name: '', network: 'tcp', port }));
}
