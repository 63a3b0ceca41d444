import { agentOptionsFromEnv, WorkspaceAgent } from './agent/agent';

/**
 * `node dist/agent.js` (`npm run agent`): the workspace agent. The built-in provisioner starts it
 * with DEVPLANE_URL, DEVPLANE_AGENT_TOKEN and DEVPLANE_AGENT_DIR; see src/agent/agent.ts.
 */
async function main(): Promise<void> {
  let options;
  try {
    options = agentOptionsFromEnv(process.env);
  } catch (error) {
    process.stderr.write(`devplane agent: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const agent = new WorkspaceAgent(options);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void agent.stop().finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await agent.start();
  options.log('agent started');
}

void main().catch((error: unknown) => {
  process.stderr.write(`devplane agent: ${String(error)}\n`);
  process.exit(1);
});
