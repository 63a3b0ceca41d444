export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as { __devplaneEmbedded?: { stop(): Promise<void> } }).__devplaneEmbedded;
  await embedded?.stop();
}
