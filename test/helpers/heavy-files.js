// Test files that start real provisioners, agents or server processes (children that compile TypeScript,
// sandboxes, Xvfb): read by the e2e environment (one at a time across workers) and the sequencer.
exports.HEAVY_FILE =
  /\b(startProvisioner|workspaceWithAgent|startAppProcess|startMain|spawnAppChild|startEmbeddedProvisioners|new BuiltinProvisioner)\s*\(/;
